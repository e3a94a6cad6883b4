import Foundation
import Testing
import VFSTestSupport

/// The test S3 engine itself: the one gateway of the process answers S3 on loopback,
/// makes buckets, and stores what curl (SigV4 of its own) puts in one.
@Suite("RADOS Gateway fixture")
struct RGWFixtureTests {
    @Test("the gateway listens on 127.0.0.1, makes a bucket, and keeps an object curl puts")
    func gatewayStoresAnObject() throws {
        let gateway = try RGWFixture.start()
        #expect(gateway.endpoint.hasPrefix("http://127.0.0.1:"))
        #expect(try RGWFixture.start() === gateway, "one gateway per test process")
        let bucket = try gateway.newBucket()
        #expect(try gateway.objectKeys(bucket: bucket).isEmpty)
        let folder = try TestFolder("rgw")
        let file = try folder.write("greeting", Data("hello from curl\n".utf8))
        let put = try Tools.run("curl", ["-sf", "--aws-sigv4", "aws:amz:\(gateway.region):s3", "--user", "\(gateway.accessKey):\(gateway.secretKey)",
                                         "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", "-T", file, "\(gateway.endpoint)/\(bucket)/a/greeting"])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(try gateway.objectKeys(bucket: bucket) == ["a/greeting"])
        // And a request without a signature is refused: the gateway checks credentials.
        let anonymous = try Tools.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "\(gateway.endpoint)/\(bucket)/a/greeting"])
        #expect(anonymous.out == "403")
    }
}
