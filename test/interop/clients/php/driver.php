<?php
// Calls every operation through PHP's SoapClient loaded from our ?wsdl, the
// way a PHP caller does, and prints one JSON line per call.
// Arguments: soap11|soap12, the base URL and, in the auth run, a folder of
// WSDL copies. With INTEROP_USER and INTEROP_PASSWORD set (the auth run) every
// SoapClient gets them as its login and password, which it sends with the
// WSDL request and every call; a last call goes out on a SoapClient without
// them, loaded from the local copy (it could not fetch the WSDL itself).
[, $binding, $base] = $argv;
$wsdlDir = $argv[3] ?? null;
$user = getenv('INTEROP_USER');
$plainOptions = [
    'soap_version' => $binding === 'soap12' ? SOAP_1_2 : SOAP_1_1,
    'cache_wsdl' => WSDL_CACHE_NONE,
    // Without it a list of one StudentInfo arrives as an object, not an array.
    'features' => SOAP_SINGLE_ELEMENT_ARRAYS,
    'exceptions' => true,
];
$options = $user === false ? $plainOptions : $plainOptions + ['login' => $user, 'password' => getenv('INTEROP_PASSWORD')];
$clients = [];
$service = function (string $endpoint) use (&$clients, $base, $options): SoapClient {
    return $clients[$endpoint] ??= new SoapClient("$base/$endpoint.asmx?wsdl", $options);
};

function records(object $response): ?array
{
    if (!isset($response->GetStudentSchoolResult)) return null;
    return array_map(fn (object $s) => [
        'id_student' => $s->id_student ?? null,
        'fullName' => $s->fullName ?? null,
        'id_device' => $s->id_device ?? null,
        'ShowActive' => $s->ShowActive ?? null,
    ], $response->GetStudentSchoolResult->StudentInfo ?? []);
}

function call(string $binding, string $name, callable $run): void
{
    $line = ['binding' => $binding, 'call' => $name];
    try {
        $line += ['ok' => true, 'value' => $run()];
    } catch (SoapFault $fault) {
        $line += ['ok' => false, 'error' => ['type' => get_class($fault), 'message' => $fault->getMessage(), 'code' => (string) $fault->faultcode]];
    } catch (Throwable $error) {
        $line += ['ok' => false, 'error' => ['type' => get_class($error), 'message' => $error->getMessage()]];
    }
    echo json_encode($line), "\n";
}

// show_active is s1:char (unsignedShort): its code, 49 for "1".
call($binding, 'GetStudentSchool', fn () => records($service('NotificationNotes')->GetStudentSchool(['school_base_url' => 'https://school-a.example', 'show_active' => ord('1')])));
call($binding, 'GetStudentSchool (no students)', fn () => records($service('NotificationNotes')->GetStudentSchool(['school_base_url' => 'https://unknown.example', 'show_active' => ord('1')])));
call($binding, 'GetTokenDevice (Arabic id)', fn () => $service('PushNotificationMobile')->GetTokenDevice(['id' => "\u{062C}\u{0647}\u{0627}\u{0632}-3001"])->GetTokenDeviceResult ?? null);
call($binding, 'GetTokenDevice', fn () => $service('PushNotificationMobile')->GetTokenDevice(['id' => 'dev-1001'])->GetTokenDeviceResult ?? null);
call($binding, 'GetTokenDevice (escaped)', fn () => $service('PushNotificationMobile')->GetTokenDevice(['id' => 'dev-2001'])->GetTokenDeviceResult ?? null);
call($binding, 'GetTokenDevice (null)', fn () => $service('PushNotificationMobile')->GetTokenDevice(['id' => 'dev-1003'])->GetTokenDeviceResult ?? null);
call($binding, 'AuthCode (fault)', function () use ($service) { $service('AuthCodeSending')->AuthCode(['code' => '1234', 'phone' => '12']); return null; });
call($binding, 'SendNotificationType', function () use ($service) { $service('NotificationNotes')->SendNotificationType(['id' => '1001', 'baseUrlSchool' => 'https://school-a.example', 'TypeNotfication' => 'absence']); return null; });
call($binding, 'AuthCode', function () use ($service) { $service('AuthCodeSending')->AuthCode(['code' => '482913', 'phone' => '0944123456']); return null; });
call($binding, 'GetStudentsAudtiNote', function () use ($service) { $service('GetStudentsAudit')->GetStudentsAudtiNote(['SubjectID' => 'MATH', 'Class_id' => '7A']); return null; });
call($binding, 'UpdateNoteState', function () use ($service) { $service('ReadNoteFromApp')->UpdateNoteState(['STDid' => '1001', 'note_type' => 'behaviour']); return null; });
call($binding, 'GetStudentsAbcenceByID', function () use ($service) { $service('GetStudentsAbsence')->GetStudentsAbcenceByID(['STDid' => '1001']); return null; });
if ($user !== false) {
    call($binding, 'GetStudentSchool (no credentials)', fn () => records((new SoapClient("$wsdlDir/NotificationNotes.wsdl", $plainOptions))->GetStudentSchool(['school_base_url' => 'https://school-a.example', 'show_active' => ord('1')])));
}
