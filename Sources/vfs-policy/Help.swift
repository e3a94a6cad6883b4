/// The long help texts of vfs-policy and its commands (shown by --help and in the
/// man page), kept apart so the commands read as code.
enum PolicyHelp {
    static let overview = """
    An item approves one app (a command name such as evince, or a reverse-DNS id \
    such as com.example.viewer) to receive files. It may restrict the groups whose \
    files the app receives and the file types (extensions); an empty list means any. \
    It may expire, and it may be disabled. `check` is the decision that scripts and \
    vfs-unwrap (for an app) use: exit 0 allowed, 1 denied. The default \
    is deny: an app without an item, an empty policy and a missing policy file \
    approve nothing.

    Storage: $VFS_POLICY, else $VFS_HOME/policy.json (VFS_HOME defaults to \
    $XDG_DATA_HOME/vfs, else ~/.local/share/vfs; without $HOME, ~ is the home \
    folder in the password database), or --policy PATH. It is plain \
    JSON a person can read, review and keep in git: pretty-printed, keys sorted, \
    items sorted by app, times in ISO 8601 UTC, and a format "version". Every change \
    takes an exclusive lock on PATH.lock, re-reads the file, writes the whole new \
    file to a temporary file that is synced and renamed over it, and appends one \
    line per changed item to the log PATH.log (policy.json.log by default; JSON \
    lines: time, user, uid, action, id, app, the fields set); changes that race \
    run one after the other and none is lost. Reads take the lock shared. A \
    policy file that does not parse, is empty (truncated), or breaks a rule (an unknown key, a duplicate \
    app), is an error naming the file and the line (exit 65), for reads and \
    changes alike: it is never replaced.

    Expiry: an item is expired at and after its expiry instant. --expires takes a \
    date (2027-01-31: valid through that whole day in UTC, expiring at \
    2027-02-01T00:00:00Z), a full ISO 8601 time (2027-01-31T17:00:00Z, or with an \
    offset such as +02:00; the instant itself), or a duration from now (90d, 12h; a unit is \
    required). \
    Times are kept to the second.

    On the relay: an organisation keeps its list on the relay, and its admins change \
    it there. With --relay, or "policy": {"source": "relay"} in $VFS_HOME/config.json \
    (which also makes vfs-unwrap --for and vfs-fetch --for use it), list, check and \
    export read this device's copy, $VFS_HOME/policy-cache/organisation.json (the \
    policy file's format plus "relay": url, revision, fetched, graceSeconds; mode \
    0600), and never touch the network; add, update, remove and import (admins only: \
    others get 403, exit 77) write through the relay's API with If-Match, then \
    refresh the copy. When another admin changed the item in between (412), the \
    command says so, reads it again and applies its change to the new version \
    (after 5 such conflicts it gives up, exit 75). sync refreshes the copy; \
    vfs-fetch --watch refreshes it on every connection and every policy event, so an \
    admin's change reaches a watching device within a second. Offline grace: a copy \
    answers for the organisation's grace (72h unless its admins set another with \
    grace) after its last successful sync; past it, or with no copy yet, every check \
    denies with reason policy-stale (exit 1), so a device cut off from the relay \
    does not keep old approvals forever. The device must be enrolled (vfs-device); \
    the token comes from the keychain (its agent, else the passcode) or --token-file.

    Threat model: the policy governs what this toolkit releases, and to whom, in \
    automated flows (vfs-unwrap for an app, scripts that ask check). It \
    does not stop a person who holds the keys from decrypting files with other \
    tools (age, vfs-decrypt), and anyone who can write the policy file can change \
    it: protect the file and its folder like the keys, and review its log.

    Examples:
      vfs-policy add com.example.viewer --name Viewer --group finance --type pdf --expires 2027-01-31
      vfs-policy check com.example.viewer --group finance --file q3.pdf && open-with-viewer q3.pdf
      vfs-policy update com.example.viewer --disable
      vfs-policy export -o policy.json && git -C audit commit -am "policy"
      vfs-policy list --json | jq -r '.[] | select(.status == "expired") | .app'
      vfs-policy add --relay evince --type pdf && vfs-policy grace 24h

    Exit status: 0 success (check: allowed); 1 check denied, or no item has the \
    given APP|ID, or add of an app that is already approved; 64 usage (a bad app, \
    group, type or date); 65 the policy, its log or an imported file does not \
    parse; 66 an imported file does not exist, or (relay) this device is not \
    enrolled; 69 the relay is unreachable; 73 the output of export cannot be \
    created; 74 read or write error; 75 (relay) the item kept changing (412) or the \
    relay is busy; 77 permission denied (relay: not an admin, or a revoked device).
    """

    static let add = """
    APP is a command name or a reverse-DNS id (letters, digits, '.', '_', '-', \
    '+'). Without --group or --type the app may receive files of any group or \
    type. An app that already has an item is refused (exit 1): change it with update.
    """

    static let update = """
    Only the options given change. --group and --type replace the whole list \
    (give every value again to extend it); --clear-groups and --clear-types empty \
    it, which means any group or type; --no-expiry removes the expiry. A run that \
    changes nothing writes and logs nothing.
    """

    static let check = """
    Denied, the reason goes to stderr: not approved, disabled, expired, group not \
    allowed, file type not allowed, and with the relay's list policy-stale (no copy \
    yet, or its last sync is older than the organisation's offline grace). An item restricted to groups denies a file \
    without a group; one restricted to types denies a file without a type. \
    --file takes the type from the path's extension (report.PDF is pdf; the file \
    need not exist). With --json, stdout carries {"allowed", "app", "reason", \
    "message", "item"} and stderr nothing.
    """

    static let importPolicy = """
    An app already in the policy takes the file's name, groups, types, expiry and \
    enabled flag and keeps its id; a new app is added (with a fresh id if its id \
    is taken). Apps only in the policy stay, unless --replace, which makes the \
    policy exactly the file. The file is checked whole first: one bad line and \
    nothing is written. Each changed item is logged. A summary goes to stderr \
    (stdout with --json).
    """

    static let sync = """
    Fetches the organisation's whole list from the relay this device is enrolled \
    with and replaces this device's copy ($VFS_HOME/policy-cache/organisation.json, \
    written whole, mode 0600) with it, recording the list's revision, the fetch time \
    and the organisation's offline grace. Checks answer from the copy until the grace \
    has passed since this sync. vfs-fetch --watch does the same on every policy event.
    """

    static let grace = """
    How long a device's copy of the list answers checks after its last successful \
    sync (default 72h). Without DURATION, prints it; with one (admins only: others get \
    exit 77), sets it for the whole organisation, and every device gets it with its \
    next sync (a policy event tells watching devices at once).
    """
}
