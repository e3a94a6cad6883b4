import Foundation
import Testing
import VFSCore
import VFSTestSupport

/// Names another device chose reach listings escaped, Unicode format characters included
/// (issue 24, item 7): "invoice\u{202E}fdp.exe" must not show as "invoiceexe.pdf".
@Suite("listings escape format characters")
struct FormatCharacterTests {
    @Test("a device and a cloud file named \"invoice\\u{202E}fdp.exe\": vfs-device list, vfs-cloud ls and vfs-fetch show the escape")
    func bidiOverride() throws {
        let scratch = try TestFolder()
        let data = scratch.url.appendingPathComponent("data")
        let admin = RelayAdmin(data: data)
        let code = try admin.addUser("alice@acme.example", org: "acme")
        let relay = try RelayProcess(data: data)
        defer { relay.stop() }
        let laptop = try Machine("laptop", in: scratch)
        try laptop.enroll(port: relay.port, code: code)
        // Another device of the user, enrolled (raw) under a name with a right-to-left override.
        let client = RelayClient(port: relay.port)
        let recipient = try X25519Identity.generate().recipient.string
        let enrolled = try client.request("POST", "/v1/enroll", json: #"{"code":"\#(try admin.invite("alice@acme.example"))","#
                                          + #""name":"invoice\u202efdp.exe","platform":"linux","recipient":"\#(recipient)"}"#)
        #expect(enrolled.status == 201, "\(enrolled.text)")
        let object = try JSONSerialization.jsonObject(with: Data(enrolled.body)) as? [String: Any]
        let otherToken = try #require(object?["token"] as? String)
        let shown = #"invoice\u{202e}fdp.exe"#

        let devices = try laptop.run("vfs-device", ["list"])
        #expect(devices.status == 0, "\(devices.stderr)")
        #expect(devices.out.contains(shown), "\(devices.out)")
        #expect(!devices.out.unicodeScalars.contains("\u{202E}"))

        let upload = try client.upload([1, 2, 3], token: otherToken)
        let put = try client.request("PUT", "/v1/cloud/invoice%E2%80%AEfdp.exe", token: otherToken, json: #"{"upload":"\#(upload)"}"#)
        #expect(put.status == 201, "\(put.text)")
        let listing = try laptop.run("vfs-cloud", ["ls"])
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(listing.out.contains(shown), "\(listing.out)")
        #expect(!listing.out.unicodeScalars.contains("\u{202E}"))

        _ = try client.send(upload: try client.upload([4, 5, 6], token: otherToken), to: [laptop.id], token: otherToken)
        let inbox = try laptop.run("vfs-fetch", [])
        #expect(inbox.status == 0, "\(inbox.stderr)")
        #expect(inbox.out.contains(shown), "\(inbox.out)")
        #expect(!inbox.out.unicodeScalars.contains("\u{202E}"))
    }
}
