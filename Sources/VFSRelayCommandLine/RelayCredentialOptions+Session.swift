import VFSCommandLine
import VFSRelayClient
import VFSCore

extension RelayCredentialOptions {
    /// This device's session from the options' credentials: with the device's identity
    /// (to decrypt) or its signing key (to sign what it sends) when asked for; its
    /// clients try again after temporary failures as `retry` says (`--retry-for`).
    public func session(identity: Bool = false, signingKey: Bool = false, retry: RetryPolicy = .none) throws -> RelaySession {
        let files = try credentialFiles
        var session = try RelaySession.open(home: VFSPaths.current.home, place: CredentialPlace(
            tokenFile: files.token, identityFile: files.identity,
            keychainPath: try keychainPath, passcode: passcodeReader), identity: identity, signingKey: signingKey,
            timeout: try relayTimeout)
        session.retry = retry
        return session
    }
}

extension RetryOptions {
    /// What the tool's relay clients try again, and for how long (`RetryPolicy`); on a
    /// terminal, unless `quiet`, the first wait is said once (a crontab's run says nothing
    /// until it succeeds or the time is spent).
    public func policy(quiet: Bool) throws -> RetryPolicy {
        let seconds = try seconds(default: Int(RetryPolicy.defaultBudget.components.seconds))
        var policy = RetryPolicy(for: .seconds(seconds))
        if !quiet && Terminal.stderrIsTerminal {
            policy.waiting = { error in
                Diagnostics.info("\(error); trying again for up to \(DurationText.format(seconds: seconds)) (--retry-for)")
            }
        }
        return policy
    }
}
