import NIOSSL

/// A certificate or key file that does not hold what TLS needs.
struct RelayTLSFileError: Error, CustomStringConvertible {
    let description: String
}

/// Loads `serve --tls-cert/--tls-key` once before serving, so a file that is not PEM
/// is reported as such (not as a data folder problem).
public func checkTLSFiles(certificate: String, key: String) throws {
    let chain = try? NIOSSLCertificate.fromPEMFile(certificate)
    guard let chain, !chain.isEmpty else { throw RelayTLSFileError(description: "no PEM certificate in \"\(certificate)\"") }
    guard (try? NIOSSLPrivateKey(file: key, format: .pem)) != nil else {
        throw RelayTLSFileError(description: "no PEM private key in \"\(key)\"")
    }
}
