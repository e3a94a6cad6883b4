/// Enrolment codes for the admin commands: made and hashed exactly as the server checks them.
public enum RelayCodes {
    public static func newEnrolmentCode() -> String { Secrets.enrolmentCode() }
    public static func hash(enrolmentCode code: String) -> String { Secrets.hash(Secrets.normalisedCode(code)) }
}
