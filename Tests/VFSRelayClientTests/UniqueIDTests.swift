import Foundation
import Testing
import VFSRelayClient
import VFSRelayProtocol

/// Ids as git and docker take them: whole, or any unique beginning.
@Suite("unique id prefixes")
struct UniqueIDTests {
    let ids = ["3f9c0d11aa", "3f9c7e22bb", "a0b1c2d3e4"]

    @Test("a whole id or a unique beginning names one; an ambiguous one lists the candidates; none is noSuchTransfer")
    func prefixes() throws {
        #expect(try RelaySession.uniqueID("a0b1c2d3e4", among: ids) == "a0b1c2d3e4")
        #expect(try RelaySession.uniqueID("a0", among: ids) == "a0b1c2d3e4")
        #expect(try RelaySession.uniqueID("3F9C0", among: ids) == "3f9c0d11aa")
        #expect(throws: RelayClientError.ambiguous(what: "transfer", reference: "3f9c", candidates: ["3f9c0d11aa", "3f9c7e22bb"])) {
            try RelaySession.uniqueID("3f9c", among: ids)
        }
        #expect(RelayClientError.ambiguous(what: "transfer", reference: "3f", candidates: ["3f9c0d11aa", "3f9c7e22bb"]).description
                == "\"3f\" names more than one transfer: 3f9c0d11aa, 3f9c7e22bb")
        #expect(throws: RelayClientError.noSuchTransfer("ff")) { try RelaySession.uniqueID("ff", among: ids) }
        #expect(throws: RelayClientError.noSuchTransfer("")) { try RelaySession.uniqueID("", among: ids) }
    }

    @Test("devices: a name, else an id or unique id prefix; two live devices of one name are ambiguous")
    func devices() throws {
        let date = Date(timeIntervalSince1970: 0)
        let phone = Device(id: "d1aa", name: "phone", platform: "linux", recipient: "age1a", created: date, lastSeen: nil)
        let twin = Device(id: "d2bb", name: "phone", platform: "linux", recipient: "age1b", created: date, lastSeen: nil)
        let laptop = Device(id: "e3cc", name: "laptop", platform: "linux", recipient: "age1c", created: date, lastSeen: nil)
        #expect(try RelaySession.device("laptop", in: [phone, laptop]).id == "e3cc")
        #expect(try RelaySession.device("d1", in: [phone, laptop]).id == "d1aa")
        #expect(throws: RelayClientError.ambiguous(what: "device", reference: "phone", candidates: ["d1aa", "d2bb"])) {
            try RelaySession.device("phone", in: [phone, twin, laptop])
        }
        #expect(throws: RelayClientError.ambiguous(what: "device", reference: "d", candidates: ["d1aa", "d2bb"])) {
            try RelaySession.device("d", in: [phone, twin, laptop])
        }
        #expect(throws: RelayClientError.noSuchDevice("tv")) { try RelaySession.device("tv", in: [phone, laptop]) }
    }
}
