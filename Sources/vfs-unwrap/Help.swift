/// The long help text of vfs-unwrap (shown by --help and in the man page), kept
/// apart so the command reads as code.
enum UnwrapHelp {
    static let overview = """
    Decrypts IN (or stdin) with identity files (-i) or identities kept by \
    vfs-keychain (-K NAME, -K all; unlocked through its agent, else with the passcode \
    from --passcode-file, --passcode-fd, VFS_PASSCODE or the terminal), or a bundle \
    sealed with vfs-wrap -p with its passphrase (--passphrase-file, --passphrase-fd, \
    VFS_PASSPHRASE or the terminal), reads the manifest, and extracts every \
    entry into -C DIR (default: the current folder). Entries are written to a staging \
    folder inside DIR and moved into place only after every SHA-256 matched and the \
    whole file authenticated; if anything fails, nothing is left behind (also when \
    interrupted by SIGINT, SIGTERM or SIGHUP). The staging folder \
    (.vfs-unwrap-PID-XXXXXXXXXXXX) is private (mode 0700); one that a run killed with \
    SIGKILL left is removed by the next extraction into DIR. An existing file or link \
    where an entry goes fails the run before anything is written (exit 73; -k, \
    --keep-old-files, says so explicitly; GNU tar would go on with the others), is \
    replaced with --force, or is kept with --skip-old-files, which leaves that entry \
    (and all below it) out, silently; a folder is never replaced by a file, and \
    folders that exist are merged into. DIR is opened once and everything happens relative to it, \
    without following links: if someone who can write to DIR swaps a folder being \
    merged into for a link or another folder during the extraction, vfs-unwrap \
    stops (exit 73), takes back what it placed, and nothing lands outside DIR.

    Modes are set as tar sets them: for root, as the bundle has them; for anyone \
    else, less the umask (under umask 077 a folder that was 0777 when wrapped comes \
    out 0700). Folders merged into keep their own mode.

    Extraction is safe against hostile bundles: absolute paths, '..', symbolic or hard \
    links that point outside DIR, device nodes, FIFOs, setuid/setgid bits, sparse \
    files, and entries not in the manifest are refused (exit 65) with nothing written.

    Limits on what extraction writes: before a byte is written, the manifest's total \
    (in whole blocks) is checked against the free space of DIR's file system (exit 73 \
    with both figures). A bundle whose content is more than --max-expansion RATIO \
    times its own size (default 1000; zstd makes about 1000:1 of long runs of zeros, \
    and a decompression bomb far more) is refused (exit 65): a bundle file before \
    anything is written, a bundle on stdin as soon as more came out than RATIO times \
    what was read (plus 1 MiB), and what it wrote is removed. --max-expansion 0 \
    lifts the cap.

    --for APP asks the policy ($VFS_POLICY, else $VFS_HOME/policy.json, or this \
    device's copy of the organisation's list on the relay when $VFS_HOME/config.json \
    says "policy": {"source": "relay"}, denied policy-stale past its offline grace; the same \
    decision as vfs-policy check, with the bundle's group and the type, from its \
    extension, of each file and link) before a byte is released: a denial exits 77, \
    says why on stderr, and writes nothing. Input that is not age, passed through, is \
    checked with no group and the type of IN's name.

    Choosing members, as tar -x does: MEMBER names an entry as --list shows it; a \
    folder brings everything below it, and the folders above a member come with it. \
    A MEMBER is taken literally (a '*' in it is a '*') unless --wildcards makes it an \
    fnmatch(3) glob anchored at the start of the name, in which '*' also matches '/'. \
    A MEMBER that matches nothing fails the run with "not found in bundle" (exit 66) \
    before anything is written (GNU tar extracts the rest and exits 2). \
    --strip-components N removes N leading components from each name; an entry with \
    no more than N is not extracted. Names as stripped must still be unique and keep \
    every link inside DIR, else the bundle is refused (exit 65) with nothing written. \
    -v lists on stderr each entry extracted (a folder with a trailing '/'), once the \
    extraction is complete, or each file as --stdout starts writing it.

    --stdout (-O) writes the content of the regular files (those chosen, or all) to \
    stdout one after another in the bundle's order, with nothing between them, as \
    tar -xO does; a bundle of one file comes out as that file. Each file's digest is \
    checked at its end (each 64 KiB is already authenticated by age before it is \
    released), and a mismatch exits 65 after what came before it. --list prints the \
    manifest (the chosen members only, when MEMBERs are given; --json for all of \
    it) without extracting; in its text and in messages, control characters in \
    names are escaped (\\n, \\x1b), so a hostile name can't rewrite the screen.

    The sender in a manifest is a claim, not a proof: vfs-wrap -K records the \
    recipient of the identity it sealed with, but anyone who can encrypt to the \
    group's recipients can make a bundle that names any sender. --list shows it as \
    "claimed sender: … (not verified)", and the "sender" field of --json is the same \
    unverified claim; don't grant trust on it.

    Input that is not age at all (a file that was never wrapped) is refused with exit \
    65; with --passthrough it is copied out unchanged, to stdout with --stdout, \
    else into DIR under IN's name (with --force through a link there as -o does: \
    the link's target is replaced, and another user's link in a sticky, \
    world-writable folder is refused, exit 73).

    Keeping the plaintext out of backups: --no-backup sets the nodump attribute \
    (chattr +d; honoured by dump and by borg's exclude-nodump option) on every file and folder \
    extracted, where the file system keeps it (ext4, XFS, btrfs, tmpfs since Linux \
    6.0; not ramfs, vfat or NFS: there a warning says what is not marked), and puts a \
    CACHEDIR.TAG (honoured by the exclude-caches options of tar, borg \
    and restic) in each folder the bundle creates in DIR; folders merged into \
    are the user's and get no tag. Links are not marked.

    Examples:
      vfs-unwrap -i key.txt -C inbox q3.vfs
      vfs-unwrap -K me --for evince -C inbox q3.vfs
      vfs-unwrap -i key.txt --for com.example.viewer --stdout notes.vfs | less
      vfs-unwrap -i key.txt --list --json q3.vfs | jq '.entries[].path'
      vfs-unwrap -i key.txt --passthrough -C inbox maybe-wrapped.pdf
      vfs-unwrap -i key.txt -v -k -C www --strip-components 1 site.vfs www/static
      vfs-unwrap -i key.txt --wildcards -O logs.vfs 'app/*.log' | grep ERROR
      vfs-unwrap --passphrase-file pass.txt --skip-old-files -C ~/restore logs.vfs

    Exit status: 0 success; 64 usage; 65 not a bundle, corrupt or tampered, a digest \
    mismatch, an unsafe entry, or content over --max-expansion, and IN not age \
    unless --passthrough is given, a corrupt policy or keychain, or names made \
    unsafe by --strip-components N; 66 IN, the keychain or a keychain identity does \
    not exist, or a MEMBER is not in the bundle; 73 an entry exists and neither \
    --force nor --skip-old-files was given, DIR can't be written or lacks the space, or a folder in DIR was \
    replaced during the extraction; 74 read or \
    write error; 77 no identity matched, a wrong passphrase or keychain passcode, \
    or the policy denies APP.
    """
}
