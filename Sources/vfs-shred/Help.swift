/// The long help text of vfs-shred (shown by --help and in the man page), kept
/// apart so the command reads as code.
enum ShredHelp {
    static let overview = """
    Defaults that differ from GNU shred: the file is removed after it is overwritten \
    (-k keeps it; GNU's -u is accepted and changes nothing), one random pass (GNU \
    makes 3; -n N for more), folders with -r, and symbolic links are removed, never \
    followed.

    Each file is destroyed in the stages of GNU shred: its bytes are overwritten in \
    place, through its own descriptor, up to its size rounded up to a whole block \
    (the holes of a sparse file stay holes), and every pass is flushed to the device \
    before the next; then its name is wiped (renamed to a meaningless name of the \
    same length, then to names half as long each round down to one character, the \
    folder synced after every round); then it is truncated and unlinked. With -k the \
    file keeps its size. -x (--exact) overwrites up to the file's size only, not to \
    the end of its last block. --remove=HOW chooses how the name goes, as in GNU \
    shred: wipesync (the default: the renames above, the folder synced after each \
    round), wipe (the renames without the syncs) or unlink (removed at once); \
    --iterations=N is GNU's name for -n N. Random passes are an AES-256-CTR keystream under a fresh \
    random key, so they run at disk speed. --verify reads the last pass back from the \
    device and compares it.

    Passes: one random pass (the default) is what current guidance asks for (NIST SP \
    800-88 Rev. 1 "Clear": a single overwrite for magnetic drives). The 35-pass \
    Gutmann scheme and the 3- and 7-pass schemes were written for encodings of \
    1990s drives and add nothing but time on drives of this century. -z adds a last \
    pass of zeros, to hide that the file was shredded.

    What overwriting cannot reach: on SSDs and flash, the drive's wear levelling may \
    keep old copies of blocks that no command can address; on copy-on-write and \
    log-structured file systems (Btrfs, ZFS, bcachefs, F2FS, NILFS), on XFS with \
    reflinks, on overlay mounts (the lower layer keeps the original), on tmpfs (swap) \
    and on network file systems (NFS, SMB), writing over a file does not promise to \
    write over its old blocks. vfs-shred says so in a warning once per such file \
    system. The real remedy there is to never store the plaintext: keep such files \
    encrypted with vfs-encrypt and destroy the key (shred the identity file, which \
    is small and short-lived), or use full-disk encryption.

    Symbolic links are never followed: a link is removed (its name wiped) and its \
    target is untouched; with -k links are left alone. A file with other hard links \
    is refused, since its data stays reachable through them, unless every one of \
    its names is in the run (named, or in a tree under -r: then the set goes, as \
    vfs-keychain's keychain and keychain.prev after a passcode change) or --force \
    (which also makes read-only files you own writable). FIFOs, sockets and character \
    devices are refused. A block device named on the command line is overwritten \
    with --device (opened exclusively, so a mounted one is refused) and never \
    removed; block devices inside folders are always refused. A file that can't be \
    opened is reported and the others still go.

    Folders (with -r) are walked depth first without crossing links, and without \
    leaving the file system the walk starts on: a mount point inside the tree \
    (another file system, or a bind mount of the same one) is skipped and reported \
    (exit 1); name it on the command line to shred what it holds. A mount point \
    named on the command line has its content shredded and stays, with a warning. \
    Files on sysfs, proc, devtmpfs, cgroup and the other kernel pseudo file systems \
    (debugfs, tracefs, securityfs, efivarfs, configfs, devpts…) are refused outright: \
    they are kernel interfaces, not stored data. Without a filter, \
    as with rm -r, a folder is removed, its name wiped too, once everything in it \
    was destroyed. With --older-than, --include or --exclude given, the run \
    chooses among the entries inside the folders named, as find DIR -mindepth 1, \
    tmpreaper and systemd-tmpfiles do: the folders named on the command line always \
    stay (a spool folder is still there for the next night's files), and so do the \
    subfolders the filters emptied. --prune-empty removes the subfolders this run \
    emptied; --remove-root removes the folders named too, once everything in them \
    went. -k never removes a folder.

    Filters apply to files and links, never to folders (folders are always walked). \
    --older-than AGE selects entries last modified more than AGE ago (90s, 30m, 12h, \
    7d, 2w, or a sum like 1h30m; a bare number is refused, never taken as \
    seconds). --include and --exclude take fnmatch(3) globs \
    matched against the base name only, not the folder path: '*.csv' matches \
    reports/a.csv; '*' and '?' match a leading dot too; a glob with a '/' is refused. \
    Paths and globs are taken as the bytes given, so names that are not UTF-8 are \
    matched and found exactly. \
    When --include is given, an entry must match one of them; it must match no --exclude \
    glob.

    --dry-run prints what would be destroyed on stdout, one path a line (folders end \
    in '/'), and touches nothing: each path as its bytes, or with -0 (--null) each \
    ended by a NUL instead of a newline, as find -print0 writes them for xargs -0; on \
    a terminal control characters are escaped and a byte that is not UTF-8 is shown \
    \\xHH, as in every message. -v lists each entry destroyed on stderr. --json \
    prints a summary on stdout: {"dryRun", "kept", "passes", "zeroPass", "files", \
    "bytes", "links", "folders", "destroyed": [path], "skipped": [{"path", "reason"}], \
    "errors": [{"path", "reason"}], "warnings": [{"path", "reason"}]} (folders in \
    "destroyed" end in '/'; a byte of a path that is not UTF-8 written \\xHH, as the \
    other tools write it). --json-lines prints one compact object a line as the run \
    goes, for logs: {"event", "path", "bytes" or "reason"} with event destroyed, \
    overwrote-device, removed-link, removed-folder, skipped, failed or warning, then \
    {"event": "summary", …} with the counts. On a terminal a progress line shows the \
    bytes written against the total and the percentage; -q hides it and the file \
    system warnings (the --json summary keeps them), for cron mail.

    Examples:
      vfs-shred secret.pdf old-key.txt
      vfs-shred -r old-project               (the folder and all it holds)
      vfs-shred -n 3 -z --verify -v disk-image.raw
      vfs-shred -r --older-than 7d --include '*.csv' --dry-run /var/spool/exports
      vfs-shred --device -n 1 /dev/sdX

    Nightly from cron (crontab -e), for a spool folder (the folder itself stays):
      30 3 * * * vfs-shred -r --older-than 7d /var/spool/exports

    Or a systemd timer. /etc/systemd/system/shred-exports.service:
      [Unit]
      Description=Shred exports older than 7 days
      [Service]
      Type=oneshot
      ExecStart=/usr/local/bin/vfs-shred -r --older-than 7d /var/spool/exports

    /etc/systemd/system/shred-exports.timer:
      [Unit]
      Description=Shred old exports nightly
      [Timer]
      OnCalendar=*-*-* 03:30:00
      Persistent=true
      [Install]
      WantedBy=timers.target

    Then: systemctl daemon-reload; systemctl enable shred-exports.timer; systemctl \
    start shred-exports.timer. Add --json to keep a summary of each run in the \
    journal or a log file.

    Exit status: 0 every entry named was destroyed (or would be, with --dry-run \
    given); 1 some were skipped or failed (each listed on stderr, and in the --json \
    summary); 64 usage.
    """
}
