import VFSCommandLine

/// The long help text of vfs-wrap (shown by --help and in the man page), kept apart so
/// the command reads as code.
enum WrapHelp {
    static let overview = """
    Writes one age file (to -o OUT, or stdout) whose plaintext is a pax archive, \
    zstd-compressed unless the content would not shrink, that starts with a manifest \
    (.vfs-manifest.json): format version, group id, access id, sender when known, \
    creation time, and each entry's path, type, size, mode, mtime, SHA-256 and link \
    target. Folders are stored recursively with relative paths, modes and mtimes; \
    symbolic links are stored as links; sockets, FIFOs and devices are skipped with a \
    warning. Names (and link targets) that are not UTF-8 keep their bytes, as tar and \
    rsync keep them: the pax header says hdrcharset=BINARY, and the manifest gives \
    the path as "path_base64" (standard base64 of its bytes) beside "path" (the \
    same with each byte that is not UTF-8 written \\xHH, for reading); \
    "target_base64" likewise. A name that holds the characters U+F780 to U+F7FF \
    (which stand for raw bytes inside the tools) is left out with a warning that \
    names it, and vfs-wrap exits 1 once the bundle holds the rest; so is a file or \
    folder that can't be read (found before anything is written, as tar goes on past \
    one and exits 2). \
    What vfs-unwrap would refuse is refused here, by its path (exit 65): \
    a file with the setuid or setgid bit, and a symbolic link that points outside \
    what is wrapped (an absolute target, or one that climbs out with '..', also \
    through other links). A folder's setgid bit is not kept (vfs-unwrap never sets \
    it). Each PATH is stored under its last component (docs/ as docs). Anyone \
    holding a recipient's identity can open a bundle with standard tools: \
    age -d -i KEY FILE | bsdtar -xf - (which also writes the manifest, \
    .vfs-manifest.json, and in a bundle vfs-push made .vfs-digests.json: add \
    --exclude '.vfs-*.json'). vfs-unwrap also checks the policy and every digest.

    Recipients: -r, -R, -i FILE (the recipient of each identity in FILE) and -K as \
    vfs-encrypt takes them, or -p for a passphrase instead, read from \
    --passphrase-file, --passphrase-fd, VFS_PASSPHRASE (least safe) or the terminal \
    (vfs-unwrap asks for it the same way); \
    -a writes PEM armor (ASCII) instead of binary. -K NAME encrypts to the recipient \
    of the identity NAME kept by vfs-keychain (-K all: every one) and records the \
    first as the bundle's sender (a claim that vfs-unwrap shows as such: nothing \
    proves it); the keychain is unlocked through its agent, else with the passcode \
    from --passcode-file, --passcode-fd, VFS_PASSCODE (least safe) or the terminal.

    -g GROUP encrypts to the recipients listed in $VFS_HOME/groups/GROUP (an age \
    recipients file, one age1… per line) and records GROUP as the bundle's group id, \
    which vfs-unwrap checks against the policy when it opens the bundle for an app.

    As with tar: -C DIR takes the PATHs (and -T lists) that follow it from DIR; \
    several -C add up (-C /srv -C www is /srv/www) and absolute PATHs ignore them; \
    each PATH is still stored under its last component. -T FILE (-T - for stdin) \
    adds the paths listed in FILE, one a line, taken as written (a line starting \
    with '-' is a name, not an option; empty lines are skipped), with --null \
    NUL-separated as find -print0 writes them; FILE itself is read from the current \
    folder. A path that does not exist fails the run (exit 66) before anything is \
    written. --exclude PATTERN (and -X FILE, one pattern a line) leaves out every \
    member whose path matches, and what is below it, as GNU tar's --exclude does, \
    with an fnmatch(3) glob in which '*' also matches '/', matched against the whole member \
    path and every tail of it that starts at a component (--exclude '*.o' leaves \
    out docs/a.o, --exclude cache leaves out docs/cache/ and all in it); a folder \
    left out is not read. -v lists each member on stderr as it is added (a folder \
    with a trailing '/'), since stdout may carry the bundle.

    The manifest comes first, so every file is hashed before it is archived; while it \
    is archived its size, mtime and ctime are checked again. A file that changes \
    while it is hashed is read once more as it is then. A file that changed again, \
    or that changed between hashing and archiving, fails the run (exit 75, nothing \
    written): the manifest already holds its digest, so it can't be archived as GNU \
    tar would, with a warning and whatever was read. With --skip-changed such a file \
    is left out instead, with a warning ("file changed as we read it"); if it \
    changed after the archive was started, a bundle written to -o OUT is written \
    again from the start without it (up to 3 times; to stdout it can't be, and the \
    run fails with 75). The run then exits 1 with the bundle complete and valid \
    without the files left out.

    Compression: while the files are hashed, 64 samples of 64 KiB spread evenly \
    through their content go through zstd's fast level; if the \
    archive would shrink by less than 3% (random data, media, archives), it is stored \
    without zstd, which would spend CPU time to make it no smaller, as borg's \
    --compression auto does. The samples weigh each file by its size, and each entry's \
    headers count as compressible. Content under 4 MiB and standard input are not \
    sampled and are compressed. \
    --compress compresses whatever the samples say, --no-compress never does. Every \
    reader (vfs-unwrap, bsdtar) tells a compressed archive by its magic bytes.

    Standard input (PATH '-', or no PATH but a name) is stored as one file named by \
    --name NAME. It must be hashed before the archive is written, so it is first \
    spooled to an unlinked temporary file in $TMPDIR (else /tmp); the spool is \
    age-encrypted to a one-time key that exists only in this process's memory, so \
    the plaintext never reaches the disk and nothing remains if the run is killed. \
    Memory stays bounded whatever the size: the archive streams into the encryptor \
    through a small pipe. With -o, OUT appears only if the whole bundle was written. \
    A progress bar is shown on a terminal.

    \(ToolIO.outputLinkNote)

    Examples:
      vfs-wrap -g finance -K me -o q3.vfs report.pdf figures/
      vfs-wrap -R team.txt --access-id viewer -o notes.vfs notes.txt
      pg_dump shop | vfs-wrap -R backup-keys.txt --name shop.sql - > shop.sql.vfs
      vfs-wrap -i key.txt -a -o site.vfs.asc -C /srv www --exclude '*.log' \\
        -X ignore.txt
      find docs -name '*.pdf' -print0 | \\
        vfs-wrap -R team.txt --null -T - -v -o pdfs.vfs
      vfs-wrap -p --passphrase-file pass.txt -o logs.vfs \\
        --skip-changed /var/log/app

    Exit status: 0 success; 1 files that changed while read were left out \
    (with --skip-changed, the bundle was written), or names that can't be stored, or \
    files or folders that can't be read (each named; the bundle holds the rest); 64 usage (no recipients, no input, bad \
    recipient or group name, binary output to a terminal); 65 a recipients or group \
    file is not valid (or the keychain is damaged), or an input vfs-unwrap would \
    refuse (a setuid file, a link out of the tree); 66 an input, a -C folder, a -T \
    or -X list, the group's file, the keychain or the keychain identity does not \
    exist; 73 OUT cannot be created; 74 read or write error; 75 a file changed while \
    it was being wrapped; 77 wrong keychain passcode.
    """
}
