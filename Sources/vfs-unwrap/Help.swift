/// The long help text of vfs-unwrap (shown by --help and in the man page), kept
/// apart so the command reads as code.
enum UnwrapHelp {
    static let overview = """
    Decrypts IN (or stdin) with identity files (-i) or identities kept by \
    vfs-keychain (-K NAME, -K all; unlocked through its agent, else with the passcode \
    from --passcode-file, --passcode-fd, VFS_PASSCODE or the terminal), reads the manifest, and extracts every \
    entry into -C DIR (default: the current folder). Entries are written to a staging \
    folder inside DIR and moved into place only after every SHA-256 matched and the \
    whole file authenticated; if anything fails, nothing is left behind (also when \
    interrupted by SIGINT, SIGTERM or SIGHUP). Existing files and links are replaced \
    only with --force, and a folder is never replaced by a file; folders that exist \
    are merged into.

    Extraction is safe against hostile bundles: absolute paths, '..', symbolic or hard \
    links that point outside DIR, device nodes, FIFOs, setuid/setgid bits, and entries \
    not in the manifest are refused (exit 65) with nothing written.

    --for APP asks the policy ($VFS_POLICY, else $VFS_HOME/policy.json; the same \
    decision as vfs-policy check, with the bundle's group and the type, from its \
    extension, of each file and link) before a byte is released: a denial exits 77, \
    says why on stderr, and writes nothing. Input that is not age, passed through, is \
    checked with no group and the type of IN's name.

    --stdout streams the content of a bundle that holds exactly one file; its digest is \
    checked at the end (each 64 KiB is already authenticated by age before it is \
    released), and a mismatch exits 65. --list prints the manifest (--json for all of \
    it) without extracting; in its text and in messages, control characters in \
    names are escaped (\\n, \\x1b), so a hostile name can't rewrite the screen.

    Input that is not age at all (a file that was never wrapped) is refused with exit \
    65; with --passthrough it is copied out unchanged, to stdout with --stdout, \
    else into DIR under IN's name.

    Examples:
      vfs-unwrap -i key.txt -C inbox q3.vfs
      vfs-unwrap -K me --for evince -C inbox q3.vfs
      vfs-unwrap -i key.txt --for com.example.viewer --stdout notes.vfs | less
      vfs-unwrap -i key.txt --list --json q3.vfs | jq '.entries[].path'
      vfs-unwrap -i key.txt --passthrough -C inbox maybe-wrapped.pdf

    Exit status: 0 success; 64 usage; 65 not a bundle, corrupt or tampered, a digest \
    mismatch, or an unsafe entry, and IN not age unless --passthrough is given, or \
    a corrupt policy or keychain; 66 IN, the keychain or a keychain identity does not \
    exist; 73 an entry exists and --force was not given, or DIR can't be written; 74 read or \
    write error; 77 no identity matched, a wrong keychain passcode, or the policy \
    denies APP.
    """
}
