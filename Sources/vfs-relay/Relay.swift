import ArgumentParser
import VFSCommandLine
import VFSCore

@main
struct Relay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-relay",
        abstract: "Run the vfs relay, which moves ciphertext between a person's devices, and administer it.",
        discussion: """
        The relay stores only what the devices encrypted: transfers, cloud files and the \
        organisations' approved-apps lists, in one SQLite database and a blob folder \
        under --data (default: $VFS_HOME/relay). Admin commands open the same folder \
        directly, also while `serve` runs.

          vfs-relay serve --listen 127.0.0.1:8787
          vfs-relay org add acme
          vfs-relay user add alice@acme.example --org acme --admin
        """,
        version: vfsVersion,
        subcommands: [Serve.self, Org.self, User.self, Invite.self, Alert.self, Users.self, Devices.self,
                      Stats.self, GC.self, Backup.self])

    static func main() async {
        await RelayMain.run(Self.self)
    }
}
