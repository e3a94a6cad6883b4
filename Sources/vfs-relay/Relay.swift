import ArgumentParser
import VFSCommandLine
import VFSCore

@main
struct Relay: AsyncVFSCommand {
    static let configuration = CommandConfiguration(
        commandName: "vfs-relay",
        abstract: "Run the vfs relay, which moves ciphertext between a person's devices, and administer it.",
        discussion: """
        The relay stores only what the devices encrypted: transfers, cloud files and the \
        organisations' approved-apps lists, in one SQLite database and a blob folder \
        under --data (default: $VFS_HOME/relay). Admin commands open the same folder \
        directly, also while `serve` runs. With --database postgres://… (and --blobs DIR), \
        serve and every admin command use a PostgreSQL database instead, which several \
        relays share behind a load balancer (`vfs-relay copy` moves an embedded relay there).

        Examples:
          vfs-relay serve --listen 127.0.0.1:8787
          vfs-relay org add acme
          vfs-relay user add alice@acme.example --org acme --admin
          vfs-relay login-code alice@acme.example   # for RELAY-URL/admin/

        What is stored where: DIR/relay.sqlite (SQLite in WAL mode: organisations, users, \
        devices with their age recipients and token hashes, enrolment code hashes, groups, \
        transfer and cloud metadata, cloud folder and file names, policy items, events, an \
        audit log), DIR/blobs (ciphertext, one file per stored blob), DIR/uploads \
        (unfinished tus uploads). Tokens and enrolment codes are stored only as SHA-256 \
        hashes. The relay never sees plaintext nor the names of transferred files; cloud \
        folder and file names are metadata it does see.

        Exit status: 0 success; 1 unblock: the address was not blocked; 64 usage; 65 the name already exists; 66 no such \
        organisation, user or transfer, or no relay database in DIR; 69 cannot listen, or the \
        PostgreSQL database does not answer; 73 the backup file cannot be created, or copy's \
        target database is not empty; 74 read or write error; 75 another sweep is running; \
        77 login-code for a user who is not an administrator.
        """,
        version: vfsVersion,
        subcommands: [Serve.self, Init.self, Org.self, User.self, OrgGroupCommand.self, Invite.self, LoginCode.self, Alert.self, Users.self, Devices.self,
                      Transfers.self, Stats.self, GC.self, Backup.self, Migrate.self, Copy.self, CopyBlobs.self, Unblock.self])
}
