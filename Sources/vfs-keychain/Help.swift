/// The long help texts of vfs-keychain and its commands (shown by --help and in the
/// man page), kept apart so the commands read as code.
enum KeychainHelp {
    static let overview = """
    Secrets (by service and account) and age identities in one encrypted file: \
    $VFS_KEYCHAIN, else $VFS_HOME/keychain, else $XDG_DATA_HOME/vfs/keychain, else \
    ~/.local/share/vfs/keychain (mode 0600 in a 0700 folder; without $HOME, as under \
    cron or env -i, ~ is the home folder in the password database). Names and \
    secrets alike are encrypted under a random master key, which the passcode (and \
    optionally the answers to security questions) unwraps; unlock hands it to an \
    agent for a while. The file format, the key slots, rollback protection and the \
    protection classes are described in vfs-keychain(1).

    Backups: the keychain file is saved with the nodump attribute (chattr +d, for \
    dump and borg's exclude-nodump option) where the file system keeps it, and the \
    toolkit's own folder and the agent folder get nodump and a CACHEDIR.TAG at init \
    and unlock (see vfs-keychain(1)).

    Commands use the agent first, then the passcode from --passcode-file, \
    --passcode-fd, VFS_PASSCODE (least safe: other processes of the user may read \
    it) or a no-echo prompt; without any of these and without a terminal they fail \
    at once. Every change is saved atomically (temporary file, fsync, rename, fsync \
    of the folder) under an exclusive lock (PATH.lock), after re-reading the file, \
    so concurrent writers never lose an entry. The file as it was before the last \
    change is kept as PATH.prev; a damaged keychain is reported and never \
    overwritten.

    Examples:
      vfs-keychain init --questions questions.txt
      printf %s "$TOKEN" | vfs-keychain set github.com deploy-bot
      curl -H "Authorization: Bearer $(vfs-keychain get github.com deploy-bot)" …
      vfs-keychain generate github.com/ci-bot
      vfs-keychain get -c github.com/ci-bot
      vfs-keychain unlock --timeout 1h && vfs-keychain list
      vfs-keychain identity new backups > backups.recipient
      vfs-decrypt -K backups -o db.sqlite db.sqlite.age

    Exit status: 0 success (status: unlocked); 1 a clean no (status: locked; find: nothing matched; edit: the editor failed); 64 \
    usage (an empty passcode file too; export to a terminal without -f); 65 the keychain is damaged \
    or was modified (it is left untouched), or an identity file is not valid; 66 no \
    keychain, no such entry (get, delete, mv, cp, generate -i), no such identity, or no recovery questions; \
    69 no clipboard tool for -c; 73 the keychain or the \
    entry already exists, a file cannot be written, or no tmpfs for edit; 74 I/O error; 75 the keychain \
    was replaced (or the edited entry changed) meanwhile, or the agent cannot start; 77 wrong passcode or \
    recovery answers, the keychain is locked and no passcode was given, or the \
    agent folder is not a private folder of this user.
    """

    static let initKeychain = """
    The passcode comes from --passcode-file, --passcode-fd, VFS_PASSCODE or the \
    terminal (asked twice). With --questions FILE (one question a line; blank \
    lines and # comments skipped; 1 to 16 questions), a recovery slot is added: \
    its key comes from the answers (from --answers-file, one a line, or asked on \
    the terminal), trimmed, case-folded and with inner spaces collapsed, so \
    recover can set a new passcode later. An existing keychain is never replaced.
    """

    static let changePasscode = """
    The current passcode is always asked for (the agent does not stand in for \
    it): from --passcode-file, --passcode-fd, VFS_PASSCODE or the terminal. The \
    new one comes from --new-passcode-file, --new-passcode-fd, VFS_NEW_PASSCODE \
    or the terminal (asked twice). A wrong current passcode exits 77 and changes \
    nothing. The master key is replaced and every entry sealed again under the \
    new one, so a copy of the old file opens nothing of the new one; PATH.prev \
    becomes the new file too. Recovery questions follow the new key without \
    their answers; a version-1 recovery slot needs them once: they are asked on \
    the terminal or read from --answers-file, and without either the questions \
    are removed with a warning (set them again with vfs-keychain questions). A running \
    agent is handed the new key and stays unlocked.
    """

    static let questions = """
    --questions FILE sets the recovery questions (one a line; blank lines and # \
    comments skipped; 1 to 16), replacing any there were; the answers come from \
    --answers-file, one a line, or are asked on the terminal. --remove removes \
    them, so that only the passcode opens the keychain. Either way the current \
    passcode is asked for (from --passcode-file, --passcode-fd, VFS_PASSCODE or \
    the terminal; the agent does not stand in for it), the master key is \
    replaced and every entry sealed again, so the old answers open no copy made \
    from now on. A running agent is handed the new key.

    Examples:
      vfs-keychain questions --questions questions.txt
      vfs-keychain questions --remove
    """

    static let recover = """
    Asks each question on the terminal (answers not echoed), or reads the \
    answers from --answers-file, one a line. Answers are compared trimmed, \
    case-folded and with inner spaces collapsed. The new passcode comes from \
    --new-passcode-file, --new-passcode-fd, VFS_NEW_PASSCODE or the terminal. \
    Wrong answers exit 77 and change nothing. As with passcode, the master key is \
    replaced, every entry sealed again, and a running agent handed the new key.
    """

    static let setSecret = """
    The secret is read from stdin when it is not a terminal: all of it, bytes as \
    they are (several lines, binary; up to 16 MiB), less one trailing newline (LF or CRLF) so \
    that echo and here-strings store what you meant; --raw keeps every byte. On a \
    terminal it is asked twice without echo (three tries if the two differ). An existing entry is replaced only \
    with --update (else exit 73); --update also creates a missing one.
    """

    static let getSecret = """
    The secret is written to stdout exactly as stored, with no newline added \
    (so $(vfs-keychain get …) and pipes get the secret itself); on a terminal a \
    newline is added for display. Exit 66 if there is no such entry.

    With -c the secret goes to the clipboard instead, through wl-copy (with \
    WAYLAND_DISPLAY set), else xclip or xsel (with DISPLAY set), on a pipe, never \
    in arguments; a detached process clears the clipboard after VFS_CLIP_TIME (a \
    duration with its unit; default 45s), restoring nothing. Without a clipboard \
    tool it fails before the passcode is asked (exit 69).

    Examples:
      vfs-keychain get github.com deploy-bot
      vfs-keychain get -c github.com/deploy-bot
      VFS_CLIP_TIME=10s vfs-keychain get -c github.com/deploy-bot
    """

    static let listSecrets = """
    One entry a line, sorted: service, account, last modified (ISO 8601, UTC) and \
    label, separated by tabs. --json writes an array of {service, account, label, \
    created, modified}. SERVICE limits the list to one service.
    """

    static let importSecrets = """
    FILE ('-' or none for stdin) holds [{"service": …, "account": …, "secret": …, \
    "label": …}, …] (label optional; the secret is the exact string). All of them \
    are added in one save, or none: an entry that exists already stops the import \
    with exit 73 unless --update replaces it.
    """

    static let identity = """
    An identity is filed by NAME (not "all", which -K all uses for every \
    identity). Its recipient (age1…, or age1pq1… for a post-quantum identity: \
    new --pq, or import of an AGE-SECRET-KEY-PQ-1… file) is printed on stdout by \
    new, import and recipient; its secret key never leaves the keychain except to \
    the tools that use it. vfs-encrypt -K NAME encrypts to it without the \
    passcode, and vfs-decrypt -K NAME decrypts with it; as with -r, post-quantum \
    and classic recipients can't be mixed in one file.

    import also keeps an age plugin's identity stub (AGE-PLUGIN-NAME-1…, from \
    age-plugin-yubikey --identity, say): it holds no secret, and -K NAME runs \
    age-plugin-NAME with it, as -i would. It has no recipient of its own, so \
    import and recipient print the stub; vfs-encrypt -K NAME asks the plugin to \
    wrap for it, which needs the keychain unlocked (the stub is only in the sealed \
    body), and -K all encrypts to the identities with a public recipient only.
    """

    static let unlock = """
    Checks the passcode (or takes the key from an agent already running, which \
    is then replaced, so unlock also extends the time), then starts a background \
    agent detached from the terminal that holds the master key in memory and \
    gives it to this user's processes only. When the timeout ends, or on lock, \
    the key is wiped from memory and the socket removed.
    """

    static let escrow = """
    Break-glass escrow for an organisation: a secret (a recovery key, a passphrase, \
    a small key file, at most 4096 bytes) is split with Shamir's secret sharing over \
    GF(2^8) (the AES field, x^8+x^4+x^3+x+1, as HashiCorp Vault and SLIP-0039 use it) \
    into N shares, each age-encrypted to one officer; any K of them rebuild it \
    exactly, and fewer reveal nothing of it (every secret fits them equally well). \
    The keychain itself is not used: escrow needs no passcode.

    A share, once decrypted, is five lines of text: "vfs-escrow-share v1", the \
    split's random id ("split:"), "share: I of N", "threshold: K" and the share's \
    bytes in base64 ("value:"). What is shared is the secret followed by 16 bytes \
    of its SHA-256, so join refuses shares that were altered or come from another \
    split, instead of printing a wrong secret; the checksum is inside the shared \
    bytes, so a single officer cannot test guesses of the secret against it.

    Examples:
      vfs-keychain escrow split --shares 3 --threshold 2 -o key \\
          --to "$(cat a.pub)" --to "$(cat b.pub)" --to "$(cat c.pub)" key.txt
      vfs-keychain escrow join -i b.key -i c.key key-2.age key-3.age

    Exit status: 0 success; 64 usage (not one --to per share, the same recipient \
    twice, a threshold out of range, an empty or too large secret, fewer shares \
    than the threshold, an encrypted share without -i); 65 a file is not a share, \
    shares of different splits, a share given twice, or shares that do not rebuild \
    the secret (checksum); 66 a file does not exist; 73 a share file already exists \
    or cannot be written; 77 no identity given opens a share.
    """

    static let escrowSplit = """
    The secret is read byte for byte from FILE or standard input (a terminal is \
    refused: pipe it in). One --to per share, in order: share I is encrypted to \
    the I-th --to, and written to PREFIX-I.age (mode 0600; -a for ASCII armor, to \
    print on paper). No file is written if any of them exists. The coefficients \
    come from OpenSSL's CSPRNG, fresh for every split, so two splits of one secret \
    never mix.
    """

    static let escrowJoin = """
    Each SHARE is an age file holding a share, opened with the -i identities \
    (every officer can give theirs), or a share already decrypted (vfs-decrypt -i \
    OFFICER.key SHARE.age). The shares may come in any order; K of them are used, \
    the others must belong to the same split. The secret is written byte for byte \
    to stdout, or to -o PATH; a binary secret is not written to a terminal.
    """
}
