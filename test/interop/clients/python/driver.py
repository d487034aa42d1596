"""Calls every operation through zeep clients built from our ?wsdl, bound to
one port (binding), the way a Python caller does, and prints one JSON line
per call. Arguments: soap11|soap12|httpget|httppost and the base URL.

With INTEROP_USER and INTEROP_PASSWORD set (the auth run), the transport's
requests.Session carries HTTPBasicAuth, so the WSDLs and every call go out
with credentials; a last call goes out on a client whose transport has none."""
import json
import os
import sys

import requests
from requests.auth import HTTPBasicAuth
import zeep
from zeep.transports import Transport

BINDING, BASE = sys.argv[1], sys.argv[2]
PORT_SUFFIX = {"soap11": "Soap", "soap12": "Soap12", "httpget": "HttpGet", "httppost": "HttpPost"}
HTTP = BINDING in ("httpget", "httppost")
# show_active is s1:char (unsignedShort) in SOAP, so its code; s:string over GET/POST, so the character.
ACTIVE = "1" if HTTP else ord("1")


class RecordingTransport(Transport):
    """Keeps the last HTTP answer, to tell what the server said when zeep cannot read it."""

    last = None

    def get(self, address, params, headers):
        self.last = super().get(address, params, headers)
        return self.last

    def post(self, address, message, headers):
        self.last = super().post(address, message, headers)
        return self.last


USER = os.environ.get("INTEROP_USER")
session = requests.Session()
if USER is not None:
    # What a caller adds for Basic: requests sends it with every request, no challenge first.
    session.auth = HTTPBasicAuth(USER, os.environ["INTEROP_PASSWORD"])
transport = RecordingTransport(session=session)
_services = {}


def service(endpoint):
    if endpoint not in _services:
        client = zeep.Client(f"{BASE}/{endpoint}.asmx?wsdl", transport=transport)
        _services[endpoint] = client.bind(endpoint, endpoint + PORT_SUFFIX[BINDING])
    return _services[endpoint]


def without_credentials(endpoint):
    """A client loaded from the WSDL with credentials, then given a transport without them."""
    client = zeep.Client(f"{BASE}/{endpoint}.asmx?wsdl", transport=transport)
    client.transport = Transport()
    return client.bind(endpoint, endpoint + PORT_SUFFIX[BINDING])


def void(run):
    """zeep's HTTP bindings cannot read any answer of an operation whose
    wsdl:output is empty (HttpOperation.output stays None, then
    `None.deserialize`), whatever the server sends: ASMX's WSDL declares void
    operations so. The call went out as zeep built it from the WSDL; what
    counts for a caller is the HTTP 200 with an empty body."""
    try:
        run()
        return None, None
    except AttributeError as error:
        answer = transport.last
        if HTTP and "deserialize" in str(error) and answer is not None and answer.status_code == 200 and answer.content == b"":
            return None, "zeep cannot read void answers of HTTP bindings; checked the HTTP 200 with an empty body instead"
        raise


def records(result):
    if result is None:
        return None
    # Over SOAP zeep flattens ArrayOfStudentInfo to a list; over GET/POST it is the ArrayOfStudentInfo object.
    items = result if isinstance(result, list) else (result.StudentInfo or [])
    return [{"id_student": s.id_student, "fullName": s.fullName, "id_device": s.id_device, "ShowActive": s.ShowActive} for s in items]


def call(name, run):
    line = {"binding": BINDING, "call": name}
    try:
        value = run()
        note = None
        if isinstance(value, tuple):
            value, note = value
        line.update(ok=True, value=value)
        if note:
            line["note"] = note
    except zeep.exceptions.Fault as fault:
        message = fault.message.decode("utf-8") if isinstance(fault.message, bytes) else str(fault.message)
        line.update(ok=False, error={"type": "zeep.exceptions.Fault", "message": message, "code": str(fault.code)})
    except zeep.exceptions.TransportError as error:
        line.update(ok=False, error={"type": "zeep.exceptions.TransportError", "message": str(error.message), "code": str(error.status_code)})
    except Exception as error:  # anything else is reported, not raised: one failed check, not a crashed run
        line.update(ok=False, error={"type": f"{type(error).__module__}.{type(error).__name__}", "message": str(error)})
    print(json.dumps(line), flush=True)


notes = lambda: service("NotificationNotes")
push = lambda: service("PushNotificationMobile")
auth = lambda: service("AuthCodeSending")

call("GetStudentSchool", lambda: records(notes().GetStudentSchool(school_base_url="https://school-a.example", show_active=ACTIVE)))
call("GetStudentSchool (no students)", lambda: records(notes().GetStudentSchool(school_base_url="https://unknown.example", show_active=ACTIVE)))
call("GetTokenDevice (Arabic id)", lambda: push().GetTokenDevice(id="\u062C\u0647\u0627\u0632-3001"))
call("GetTokenDevice", lambda: push().GetTokenDevice(id="dev-1001"))
call("GetTokenDevice (escaped)", lambda: push().GetTokenDevice(id="dev-2001"))
call("GetTokenDevice (null)", lambda: push().GetTokenDevice(id="dev-1003"))
call("AuthCode (fault)", lambda: void(lambda: auth().AuthCode(code="1234", phone="12")))
call("SendNotificationType", lambda: void(lambda: notes().SendNotificationType(id="1001", baseUrlSchool="https://school-a.example", TypeNotfication="absence")))
call("AuthCode", lambda: void(lambda: auth().AuthCode(code="482913", phone="0944123456")))
call("GetStudentsAudtiNote", lambda: void(lambda: service("GetStudentsAudit").GetStudentsAudtiNote(SubjectID="MATH", Class_id="7A")))
call("UpdateNoteState", lambda: void(lambda: service("ReadNoteFromApp").UpdateNoteState(STDid="1001", note_type="behaviour")))
call("GetStudentsAbcenceByID", lambda: void(lambda: service("GetStudentsAbsence").GetStudentsAbcenceByID(STDid="1001")))
if USER is not None:
    call("GetStudentSchool (no credentials)", lambda: records(without_credentials("NotificationNotes").GetStudentSchool(school_base_url="https://school-a.example", show_active=ACTIVE)))
