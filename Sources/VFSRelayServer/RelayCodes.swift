/// Enrolment codes for the admin commands: made and hashed exactly as the server checks them.
public enum RelayCodes {
    public static func newEnrolmentCode() -> String { Secrets.enrolmentCode() }
    public static func hash(enrolmentCode code: String) -> String { Secrets.hash(Secrets.normalisedCode(code)) }
}

extension RelayCodes {
    /// Sign-in codes for the admin web page: the same shape as enrolment codes.
    public static func newLoginCode() -> String { Secrets.enrolmentCode() }
    public static func hash(loginCode code: String) -> String { Secrets.hash("login:" + Secrets.normalisedCode(code)) }
}
