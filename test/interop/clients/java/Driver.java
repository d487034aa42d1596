// Calls every operation through the JAX-WS proxies that wsimport generated
// from our ?wsdl (one package per endpoint), the way an existing Java caller
// does, and prints one JSON line per call. Argument: soap11 or soap12; both
// ports share the SOAP portType, so only the port getter differs.
//
// The auth run (INTEROP_USER and INTEROP_PASSWORD set, second argument the
// folder of WSDL copies) gives every port BindingProvider's username and
// password, then makes one call on a port without them. The services read
// their WSDL from the local copies: fetching it over HTTP at run time needs a
// java.net.Authenticator, and once that has answered a challenge
// HttpURLConnection sends the credentials on its own to every URL under the
// same host and path, the calls without them included.
import java.io.File;
import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.xml.ws.BindingProvider;
import javax.xml.ws.soap.SOAPFaultException;

public final class Driver {
    private static String binding;
    private static String user;
    private static String password;
    private static File wsdlDir;

    public static void main(String[] args) {
        binding = args[0];
        user = System.getenv("INTEROP_USER");
        password = System.getenv("INTEROP_PASSWORD");
        wsdlDir = args.length > 1 ? new File(args[1]) : null;
        final boolean soap12 = binding.equals("soap12");
        // show_active is s1:char (unsignedShort), bound to int: the char '1' widens to its code, 49.
        call("GetStudentSchool", () -> records(notes(soap12).getStudentSchool("https://school-a.example", '1')));
        call("GetStudentSchool (no students)", () -> records(notes(soap12).getStudentSchool("https://unknown.example", '1')));
        call("GetTokenDevice (Arabic id)", () -> Json.str(push(soap12).getTokenDevice("\u062C\u0647\u0627\u0632-3001")));
        call("GetTokenDevice", () -> Json.str(push(soap12).getTokenDevice("dev-1001")));
        call("GetTokenDevice (escaped)", () -> Json.str(push(soap12).getTokenDevice("dev-2001")));
        call("GetTokenDevice (null)", () -> Json.str(push(soap12).getTokenDevice("dev-1003")));
        call("AuthCode (fault)", () -> { auth(soap12).authCode("1234", "12"); return "null"; });
        call("SendNotificationType", () -> { notes(soap12).sendNotificationType("1001", "https://school-a.example", "absence"); return "null"; });
        call("AuthCode", () -> { auth(soap12).authCode("482913", "0944123456"); return "null"; });
        call("GetStudentsAudtiNote", () -> {
            interop.getstudentsaudit.GetStudentsAudit service = wsdlDir == null ? new interop.getstudentsaudit.GetStudentsAudit() : new interop.getstudentsaudit.GetStudentsAudit(wsdl("GetStudentsAudit"));
            withCredentials(soap12 ? service.getGetStudentsAuditSoap12() : service.getGetStudentsAuditSoap()).getStudentsAudtiNote("MATH", "7A");
            return "null";
        });
        call("UpdateNoteState", () -> {
            interop.readnotefromapp.ReadNoteFromApp service = wsdlDir == null ? new interop.readnotefromapp.ReadNoteFromApp() : new interop.readnotefromapp.ReadNoteFromApp(wsdl("ReadNoteFromApp"));
            withCredentials(soap12 ? service.getReadNoteFromAppSoap12() : service.getReadNoteFromAppSoap()).updateNoteState("1001", "behaviour");
            return "null";
        });
        call("GetStudentsAbcenceByID", () -> {
            interop.getstudentsabsence.GetStudentsAbsence service = wsdlDir == null ? new interop.getstudentsabsence.GetStudentsAbsence() : new interop.getstudentsabsence.GetStudentsAbsence(wsdl("GetStudentsAbsence"));
            withCredentials(soap12 ? service.getGetStudentsAbsenceSoap12() : service.getGetStudentsAbsenceSoap()).getStudentsAbcenceByID("1001");
            return "null";
        });
        if (user != null) {
            call("GetStudentSchool (no credentials)", () -> {
                interop.notificationnotes.NotificationNotes service = new interop.notificationnotes.NotificationNotes(wsdl("NotificationNotes"));
                return records((soap12 ? service.getNotificationNotesSoap12() : service.getNotificationNotesSoap()).getStudentSchool("https://school-a.example", '1'));
            });
        }
    }

    /** What a caller adds for Basic: the port's request context gets the user and password, sent with every call. */
    private static <T> T withCredentials(T port) {
        if (user != null) {
            Map<String, Object> context = ((BindingProvider) port).getRequestContext();
            context.put(BindingProvider.USERNAME_PROPERTY, user);
            context.put(BindingProvider.PASSWORD_PROPERTY, password);
        }
        return port;
    }

    private static URL wsdl(String endpoint) throws Exception {
        return new File(wsdlDir, endpoint + ".wsdl").toURI().toURL();
    }

    private static interop.notificationnotes.NotificationNotesSoap notes(boolean soap12) throws Exception {
        interop.notificationnotes.NotificationNotes service = wsdlDir == null ? new interop.notificationnotes.NotificationNotes() : new interop.notificationnotes.NotificationNotes(wsdl("NotificationNotes"));
        return withCredentials(soap12 ? service.getNotificationNotesSoap12() : service.getNotificationNotesSoap());
    }

    private static interop.pushnotificationmobile.PushNotificationMobileSoap push(boolean soap12) throws Exception {
        interop.pushnotificationmobile.PushNotificationMobile service = wsdlDir == null ? new interop.pushnotificationmobile.PushNotificationMobile() : new interop.pushnotificationmobile.PushNotificationMobile(wsdl("PushNotificationMobile"));
        return withCredentials(soap12 ? service.getPushNotificationMobileSoap12() : service.getPushNotificationMobileSoap());
    }

    private static interop.authcodesending.AuthCodeSendingSoap auth(boolean soap12) throws Exception {
        interop.authcodesending.AuthCodeSending service = wsdlDir == null ? new interop.authcodesending.AuthCodeSending() : new interop.authcodesending.AuthCodeSending(wsdl("AuthCodeSending"));
        return withCredentials(soap12 ? service.getAuthCodeSendingSoap12() : service.getAuthCodeSendingSoap());
    }

    private static void call(String name, Callable<String> run) {
        String outcome;
        try {
            outcome = "\"ok\":true,\"value\":" + run.call();
        } catch (SOAPFaultException e) {
            // What a caller catches; the RI throws a subclass whose message wraps the fault string.
            outcome = error(SOAPFaultException.class.getName(), e.getFault().getFaultString(), e.getFault().getFaultCode());
        } catch (Exception e) {
            outcome = error(e.getClass().getName(), String.valueOf(e.getMessage()), null);
        }
        System.out.println("{\"binding\":" + Json.str(binding) + ",\"call\":" + Json.str(name) + "," + outcome + "}");
    }

    private static String error(String type, String message, String code) {
        return "\"ok\":false,\"error\":{\"type\":" + Json.str(type) + ",\"message\":" + Json.str(message)
            + (code == null ? "" : ",\"code\":" + Json.str(code)) + "}";
    }

    private static String records(interop.notificationnotes.ArrayOfStudentInfo result) {
        if (result == null) return "null";
        StringBuilder json = new StringBuilder("[");
        List<interop.notificationnotes.StudentInfo> items = result.getStudentInfo();
        for (interop.notificationnotes.StudentInfo s : items) {
            if (json.length() > 1) json.append(',');
            json.append("{\"id_student\":").append(Json.str(s.getIdStudent()))
                .append(",\"fullName\":").append(Json.str(s.getFullName()))
                .append(",\"id_device\":").append(Json.str(s.getIdDevice()))
                .append(",\"ShowActive\":").append(Json.str(s.getShowActive())).append('}');
        }
        return json.append(']').toString();
    }
}

final class Json {
    /** Everything outside printable ASCII is escaped, so the line survives any console encoding. */
    static String str(String value) {
        if (value == null) return "null";
        StringBuilder json = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            if (c == '"' || c == '\\') json.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e) json.append(String.format("\\u%04x", (int) c));
            else json.append(c);
        }
        return json.append('"').toString();
    }
}
