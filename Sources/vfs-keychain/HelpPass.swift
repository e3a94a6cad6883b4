/// The long help texts of the commands a pass user expects (generate, edit, mv, cp,
/// find, export, identity export).
extension KeychainHelp {
    static let generate = """
    Makes LENGTH characters (default 25, as pass) drawn uniformly from letters, \
    digits and ASCII punctuation (--no-symbols: letters and digits only), from the \
    kernel's random generator, stores them for SERVICE and ACCOUNT (or the one name \
    SERVICE/ACCOUNT; a number after it is the length), and prints them once on \
    stdout as get does. An existing entry is kept (exit 73) unless --force replaces \
    it; --in-place replaces the secret of an existing entry only (exit 66 if there \
    is none), keeping its label. With -c the secret goes to the clipboard instead \
    (see get).

    Examples:
      vfs-keychain generate github.com deploy-bot
      vfs-keychain generate -n wifi/home 32
      vfs-keychain generate -i -c github.com/deploy-bot
    """

    static let edit = """
    Writes the secret (nothing, for a new entry) to a file of mode 0600 in a new \
    folder of mode 0700 on a memory file system: $XDG_RUNTIME_DIR if it is a \
    tmpfs, else /dev/shm; with neither, edit refuses (exit 73) rather than put the \
    secret on a disk. Then runs $VISUAL, else $EDITOR, else vi on it (through \
    sh -c, so the variable may hold options), reads it back, overwrites the file \
    with zeros and removes it and its folder, whatever happens (an interrupt, \
    SIGTERM or SIGHUP too). One final newline is dropped, as set drops it. The \
    secret is saved only if it changed, and only if no other command changed it \
    meanwhile (else exit 75). An editor that exits with a status other than 0 \
    saves nothing (exit 1); an empty file saves nothing (exit 64).

    Examples:
      vfs-keychain edit github.com deploy-bot
      EDITOR=nano vfs-keychain edit wifi/home
    """

    static let moveCopy = """
    OLD and NEW are SERVICE/ACCOUNT names (as pass names entries), or four words \
    SERVICE ACCOUNT NEW-SERVICE NEW-ACCOUNT. mv keeps the entry's dates; cp makes a \
    new entry with the same secret and label. Exit 66 if OLD is missing; 73 if NEW \
    exists, unless -f replaces it.

    Examples:
      vfs-keychain mv github.com/deploy-bot github.com/ci-bot
      vfs-keychain cp -f github.com deploy-bot gitlab.com deploy-bot
    """

    static let find = """
    Writes the entries whose service, account or label contains any TERM, compared \
    without regard to case, as list writes them (--json too); never secrets. Exit \
    1 if none matches (as grep). search is another name for it, as in pass.

    Examples:
      vfs-keychain find github
      vfs-keychain find --json deploy backup
    """

    static let exportSecrets = """
    Writes [{"service": …, "account": …, "secret": …, "label": …}, …], sorted, on \
    stdout: the format import reads, so that export | import fills another \
    keychain with the same entries. Identities are not included (identity export \
    writes one). A secret that is not UTF-8 text cannot be a JSON string: export \
    then writes nothing (exit 65; get it on its own). Standard output must not be a \
    terminal, so the secrets are not shown on a screen by mistake, unless --force \
    is given (exit 64). The file written holds every secret in plaintext: keep it \
    on a tmpfs and vfs-shred it after use.

    Examples:
      vfs-keychain export | VFS_KEYCHAIN=new-keychain vfs-keychain import
      vfs-keychain export > /dev/shm/secrets.json
    """

    static let exportIdentity = """
    Writes the identity as an age identity file: a "# public key: age1…" comment \
    and the AGE-SECRET-KEY-1… line (AGE-SECRET-KEY-PQ-1… for a post-quantum \
    identity), which age -d -i, vfs-decrypt -i and identity import read. As with \
    export, standard output must not be a terminal unless --force is given (exit \
    64). The identity stays in the keychain.

    Examples:
      vfs-keychain identity export backups > /dev/shm/backups.key
      age -d -i /dev/shm/backups.key -o db.sqlite db.sqlite.age
    """
}
