import VFSCommandLine
import VFSRelayClient
import VFSCore

extension RelayCredentialOptions {
    /// This device's session from the options' credentials: with the device's identity
    /// (to decrypt) or its signing key (to sign what it sends) when asked for.
    public func session(identity: Bool = false, signingKey: Bool = false) throws -> RelaySession {
        try RelaySession.open(home: VFSPaths.current.home, place: CredentialPlace(
            tokenFile: tokenFile, identityFile: identityFile,
            keychainPath: try keychainPath, passcode: passcodeReader), identity: identity, signingKey: signingKey,
            timeout: try relayTimeout)
    }
}
