// Calls every operation through WCF clients that Mono's svcutil generated
// from our WSDLs (System.ServiceModel, BasicHttpBinding: SOAP 1.1), the way an
// existing WCF caller does, and prints one JSON line per call.
// Arguments: soap11 and the base URL (svcutil writes no configuration, so the
// driver gives each client its binding and address, as code-only callers do).
// With INTEROP_USER and INTEROP_PASSWORD set (the auth run) the binding is
// TransportCredentialOnly with Basic and each client's ClientCredentials carry
// the user; a last call goes out on a client without them.
using System;
using System.ServiceModel;
using System.Text;

static class Driver
{
    static string binding;
    static string baseUrl;
    static string user;
    static string password;

    static int Main(string[] args)
    {
        binding = args[0];
        baseUrl = args[1];
        user = Environment.GetEnvironmentVariable("INTEROP_USER");
        password = Environment.GetEnvironmentVariable("INTEROP_PASSWORD");
        bool auth = user != null;
        Call("GetStudentSchool", () => Records(Notes(auth).GetStudentSchool("https://school-a.example", '1')));
        Call("GetStudentSchool (no students)", () => Records(Notes(auth).GetStudentSchool("https://unknown.example", '1')));
        Call("GetTokenDevice (Arabic id)", () => Json.Str(Push(auth).GetTokenDevice("\u062C\u0647\u0627\u0632-3001")));
        Call("GetTokenDevice", () => Json.Str(Push(auth).GetTokenDevice("dev-1001")));
        Call("GetTokenDevice (escaped)", () => Json.Str(Push(auth).GetTokenDevice("dev-2001")));
        Call("GetTokenDevice (null)", () => Json.Str(Push(auth).GetTokenDevice("dev-1003")));
        Call("AuthCode (fault)", () => { AuthCodes(auth).AuthCode("1234", "12"); return "null"; });
        Call("SendNotificationType", () => { Notes(auth).SendNotificationType("1001", "https://school-a.example", "absence"); return "null"; });
        Call("AuthCode", () => { AuthCodes(auth).AuthCode("482913", "0944123456"); return "null"; });
        Call("GetStudentsAudtiNote", () => { Audit(auth).GetStudentsAudtiNote("MATH", "7A"); return "null"; });
        Call("UpdateNoteState", () => { ReadNotes(auth).UpdateNoteState("1001", "behaviour"); return "null"; });
        Call("GetStudentsAbcenceByID", () => { Absence(auth).GetStudentsAbcenceByID("1001"); return "null"; });
        if (auth)
            Call("GetStudentSchool (no credentials)", () => Records(Notes(false).GetStudentSchool("https://school-a.example", '1')));
        return 0;
    }

    static NotificationNotesSoapClient Notes(bool auth) { return User(new NotificationNotesSoapClient(Binding(auth), Address("NotificationNotes")), auth); }
    static PushNotificationMobileSoapClient Push(bool auth) { return User(new PushNotificationMobileSoapClient(Binding(auth), Address("PushNotificationMobile")), auth); }
    static AuthCodeSendingSoapClient AuthCodes(bool auth) { return User(new AuthCodeSendingSoapClient(Binding(auth), Address("AuthCodeSending")), auth); }
    static GetStudentsAuditSoapClient Audit(bool auth) { return User(new GetStudentsAuditSoapClient(Binding(auth), Address("GetStudentsAudit")), auth); }
    static ReadNoteFromAppSoapClient ReadNotes(bool auth) { return User(new ReadNoteFromAppSoapClient(Binding(auth), Address("ReadNoteFromApp")), auth); }
    static GetStudentsAbsenceSoapClient Absence(bool auth) { return User(new GetStudentsAbsenceSoapClient(Binding(auth), Address("GetStudentsAbsence")), auth); }

    // What a caller writes for Basic: TransportCredentialOnly (Basic over
    // plain HTTP; Transport would demand https) with the Basic credential
    // type, and the user in ClientCredentials.UserName.
    static BasicHttpBinding Binding(bool auth)
    {
        var httpBinding = new BasicHttpBinding(auth ? BasicHttpSecurityMode.TransportCredentialOnly : BasicHttpSecurityMode.None);
        if (auth) httpBinding.Security.Transport.ClientCredentialType = HttpClientCredentialType.Basic;
        return httpBinding;
    }

    static EndpointAddress Address(string endpoint)
    {
        return new EndpointAddress(baseUrl + "/" + endpoint + ".asmx");
    }

    static T User<T>(T client, bool auth) where T : ICommunicationObject
    {
        if (!auth) return client;
        // ClientBase<TChannel>.ClientCredentials, whatever the contract.
        var credentials = (System.ServiceModel.Description.ClientCredentials)client.GetType().GetProperty("ClientCredentials").GetValue(client, null);
        credentials.UserName.UserName = user;
        credentials.UserName.Password = password;
        return client;
    }

    static void Call(string name, Func<string> run)
    {
        string outcome;
        try
        {
            outcome = "\"ok\":true,\"value\":" + run();
        }
        catch (Exception e)
        {
            outcome = "\"ok\":false,\"error\":" + Error(e);
        }
        Console.WriteLine("{\"binding\":" + Json.Str(binding) + ",\"call\":" + Json.Str(name) + "," + outcome + "}");
    }

    static string Records(tempuri.org.StudentInfo[] items)
    {
        if (items == null) return "null";
        var json = new StringBuilder("[");
        foreach (var s in items)
        {
            if (json.Length > 1) json.Append(',');
            json.Append("{\"id_student\":").Append(Json.Str(s.id_student))
                .Append(",\"fullName\":").Append(Json.Str(s.fullName))
                .Append(",\"id_device\":").Append(Json.Str(s.id_device))
                .Append(",\"ShowActive\":").Append(Json.Str(s.ShowActive)).Append('}');
        }
        return json.Append(']').ToString();
    }

    // A SOAP fault is a FaultException; what WCF throws for an HTTP error is reported with its inner exception's message.
    static string Error(Exception e)
    {
        string message = e.Message;
        string code = null;
        var fault = e as FaultException;
        if (fault != null) code = fault.Code.Name;
        for (var inner = e.InnerException; inner != null; inner = inner.InnerException) message += " | " + inner.Message;
        return "{\"type\":" + Json.Str(e.GetType().FullName) + ",\"message\":" + Json.Str(message) + (code == null ? "" : ",\"code\":" + Json.Str(code)) + "}";
    }
}

static class Json
{
    // Everything outside printable ASCII is escaped, so the line survives any console encoding.
    public static string Str(string value)
    {
        if (value == null) return "null";
        var json = new StringBuilder("\"");
        foreach (char c in value)
        {
            if (c == '"' || c == '\\') json.Append('\\').Append(c);
            else if (c < 0x20 || c > 0x7e) json.AppendFormat("\\u{0:x4}", (int)c);
            else json.Append(c);
        }
        return json.Append('"').ToString();
    }
}
