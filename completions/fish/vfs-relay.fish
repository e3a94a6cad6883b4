function __vfs-relay_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-relay_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-relay_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-relay_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-relay_parse_tokens -S
    set -l unparsed_tokens (__vfs-relay_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-relay'
        __vfs-relay_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'serve'
            __vfs-relay_parse_subcommand 0 'data=' 'database=' 'blobs=' 's3-credentials=' 'listen=' 'tls-cert=' 'tls-key=' 'max-upload=' 'quota=' 'max-open-uploads=' 'max-cloud-entries=' 'disk-reserve=' 'keep-alive=' 'sweep-interval=' 'upload-idle-expiry=' 'trusted-proxy=+' 'proxy-header=' 'metrics' 'metrics-from=+' 'log-level=' 'idle-timeout=' 'max-connections=' 'max-connections-per-address=' 'first-request-timeout=' 'max-event-streams=' 'max-devices=' 'max-org-devices=' 'max-open-invites=' 'max-user-event-streams=' 'max-org-event-streams=' 'max-user-requests=' 'max-org-requests=' 'version' 'h/help'
        case 'init'
            __vfs-relay_parse_subcommand 0 'data=' 'database=' 'blobs=' 's3-credentials=' 'version' 'h/help'
        case 'org'
            __vfs-relay_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'add'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'version' 'h/help'
            case 'list'
                __vfs-relay_parse_subcommand 0 'data=' 'database=' 'blobs=' 's3-credentials=' 'json' 'version' 'h/help'
            case 'set'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'min-retention=' 'links=' 'link-max-expiry=' 'link-max-downloads=' 'link-max-size=' 'cloud-versions=' 'version' 'h/help'
            case 'show'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'json' 'version' 'h/help'
            end
        case 'user'
            __vfs-relay_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'add'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'org=' 'admin' 'expires=' 'version' 'h/help'
            case 'remove'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'y/yes' 'version' 'h/help'
            case 'disable'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'version' 'h/help'
            case 'enable'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'version' 'h/help'
            case 'set'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'admin' 'no-admin' 'version' 'h/help'
            case 'cut-chain'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'version' 'h/help'
            case 'reset-chain'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'y/yes' 'version' 'h/help'
            end
        case 'group'
            __vfs-relay_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'add'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'org=' 'version' 'h/help'
            case 'list'
                __vfs-relay_parse_subcommand 0 'data=' 'database=' 'blobs=' 's3-credentials=' 'org=' 'json' 'version' 'h/help'
            case 'member'
                __vfs-relay_parse_subcommand 0 'version' 'h/help'
                switch $unparsed_tokens[1]
                case 'add'
                    __vfs-relay_parse_subcommand 2 'data=' 'database=' 'blobs=' 's3-credentials=' 'org=' 'version' 'h/help'
                case 'remove'
                    __vfs-relay_parse_subcommand 2 'data=' 'database=' 'blobs=' 's3-credentials=' 'org=' 'version' 'h/help'
                case 'list'
                    __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'org=' 'json' 'version' 'h/help'
                end
            end
        case 'invite'
            __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'expires=' 'version' 'h/help'
        case 'login-code'
            __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'expires=' 'version' 'h/help'
        case 'alert'
            __vfs-relay_parse_subcommand 2 'data=' 'database=' 'blobs=' 's3-credentials=' 'version' 'h/help'
        case 'users'
            __vfs-relay_parse_subcommand 0 'data=' 'database=' 'blobs=' 's3-credentials=' 'json' 'org=' 'disabled' 'version' 'h/help'
        case 'devices'
            __vfs-relay_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'list'
                __vfs-relay_parse_subcommand 0 'data=' 'database=' 'blobs=' 's3-credentials=' 'json' 'user=' 'active' 'version' 'h/help'
            case 'revoke'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'version' 'h/help'
            end
        case 'transfers'
            __vfs-relay_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'rm'
                __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'version' 'h/help'
            end
        case 'stats'
            __vfs-relay_parse_subcommand 0 'data=' 'database=' 'blobs=' 's3-credentials=' 'json' 'version' 'h/help'
        case 'gc'
            __vfs-relay_parse_subcommand 0 'data=' 'database=' 'blobs=' 's3-credentials=' 'grace=' 'json' 'version' 'h/help'
        case 'backup'
            __vfs-relay_parse_subcommand 0 'data=' 'database=' 'blobs=' 's3-credentials=' 'o/output=' 'version' 'h/help'
        case 'migrate'
            __vfs-relay_parse_subcommand 0 'data=' 'database=' 'blobs=' 's3-credentials=' 'version' 'h/help'
        case 'copy'
            __vfs-relay_parse_subcommand 0 'from=' 'to=' 'blobs=' 'version' 'h/help'
        case 'copy-blobs'
            __vfs-relay_parse_subcommand 0 'from=' 'data=' 'database=' 'blobs=' 's3-credentials=' 'version' 'h/help'
        case 'unblock'
            __vfs-relay_parse_subcommand 1 'data=' 'database=' 'blobs=' 's3-credentials=' 'version' 'h/help'
        case 'help'
            __vfs-relay_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-relay_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-relay_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __vfs-relay_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-relay_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-relay_tokens -p)
    if test -z "$(__vfs-relay_tokens -t)"
        set -l index (count (__vfs-relay_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-relay' -f
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'serve' -d 'Serve the relay API in the foreground until SIGTERM or SIGINT.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'init' -d 'Create the relay\'s data folder and database (serve also creates them).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'org' -d 'Manage organisations.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'user' -d 'Manage users.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'group' -d 'Manage an organisation\'s groups of people (vfs-push --to-group NAME sends to every member).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'invite' -d 'Print another one-time enrolment code for a user\'s next device.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'login-code' -d 'Print a one-time code that signs an administrator in to the relay\'s web page.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'alert' -d 'Send an alert event to every device of a user.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'users' -d 'List users: email, organisation, role, devices.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'devices' -d 'List devices: user, id, name, platform, state; or revoke one.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'transfers' -d 'The operator\'s hand on transfers: remove one, retained or not.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'stats' -d 'Print counts: organisations, users, devices, blobs, transfers.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'gc' -d 'Expire transfers and uploads, recount blob references, delete orphan blobs (what serve runs on a timer).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'backup' -d 'Write an online, consistent copy of the relay database (the blob folder is copied separately).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'migrate' -d 'Bring the relay database\'s schema up to date (serve also does it at start).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'copy' -d 'Copy an embedded relay\'s data (SQLite) into an empty PostgreSQL relay database.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'copy-blobs' -d 'Copy a relay\'s blob files from its folder into its S3 bucket.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'unblock' -d 'Let an address that sent too many wrong enrolment codes try again at once.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" listen' -l 'listen' -d 'The address and port to listen on.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" tls-cert' -l 'tls-cert' -d 'Serve HTTPS with this PEM certificate chain (with --tls-key).' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" tls-key' -l 'tls-key' -d 'The PEM private key of --tls-cert.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-upload' -l 'max-upload' -d 'The largest upload: bytes, or with a unit K, M, G, T (powers of 1024): 512M, 10G, 1.5T.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" quota' -l 'quota' -d 'What one user may store at once: bytes, or with a unit K, M, G, T (powers of 1024): 10G.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-open-uploads' -l 'max-open-uploads' -d 'Uploads one user may hold at once, unfinished or not yet sent; one more is refused with 429.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-cloud-entries' -l 'max-cloud-entries' -d 'Cloud files and folders one user may hold; one more is refused with 507 (too_many_entries).' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" disk-reserve' -l 'disk-reserve' -d 'Free space to keep on the disk of the blobs: a size (1G) or a share (5%); uploads past it are refused with 507 so the database and deletes still work (default: 5%, at most 1G).' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" keep-alive' -l 'keep-alive' -d 'Seconds between keep-alive comments on event streams.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" sweep-interval' -l 'sweep-interval' -d 'Seconds between sweeps for expired transfers and orphan blobs.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" upload-idle-expiry' -l 'upload-idle-expiry' -d 'Expire an upload that gets no bytes for this many seconds (an interrupted or abandoned push): its bytes and quota are freed and the transfer made of it while it uploaded expires for its targets (at the next sweep).' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve"' -l 'trusted-proxy' -d 'A proxy in front of the relay (nginx), as an address or range: 127.0.0.1, 10.0.0.0/8, ::1. Only from these peers is --proxy-header taken as the client\'s address (for the wrong-code throttle, the log and --metrics). Repeatable; goes with --proxy-header.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" proxy-header' -l 'proxy-header' -d 'The one header the --trusted-proxy sets to the client\'s address: x-forwarded-for (the shipped nginx site), x-real-ip or forwarded. Every other forwarding header is ignored, and without this option all are.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" metrics' -l 'metrics' -d 'Serve GET /metrics in the Prometheus text format (requests and latencies by route, upload and download bytes, event streams, errors) to loopback clients and --metrics-from addresses.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve"' -l 'metrics-from' -d 'Another address or range (CIDR) that may read /metrics. Repeatable.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" log-level' -l 'log-level' -d 'What to log on stderr: error, warning, info (adds a line per request), debug or trace.' -rfka 'error warning info debug trace'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" idle-timeout' -l 'idle-timeout' -d 'Close a connection that sends nothing for this many seconds: no request, a stalled upload, an idle keep-alive (event streams and downloads being answered are not idle).' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-connections' -l 'max-connections' -d 'Connections open at once; more wait until one closes (default: under half the open-file limit, at most 16384).' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-connections-per-address' -l 'max-connections-per-address' -d 'Connections one client address may hold at once; one more is closed as soon as it opens, so one address cannot fill --max-connections (--trusted-proxy addresses are not counted; raise it for many devices behind one NAT address).' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" first-request-timeout' -l 'first-request-timeout' -d 'Close a connection whose first request has not arrived this many seconds after it opened (at most --idle-timeout).' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-event-streams' -l 'max-event-streams' -d 'Event streams one device may hold open at once; one more is refused with 429.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-devices' -l 'max-devices' -d 'Live devices one user may have (pending ones too); one more enrolment is refused with 403.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-org-devices' -l 'max-org-devices' -d 'Live devices of all the users of one organisation; one more enrolment is refused with 403.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-open-invites' -l 'max-open-invites' -d 'Unused invitation codes one user\'s devices may hold at once (vfs-device invite; the operator\'s are not counted); one more is refused with 429 until one is used or expires.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-user-event-streams' -l 'max-user-event-streams' -d 'Event streams all of one user\'s devices may hold open at once (on this relay instance); one more is refused with 429.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-org-event-streams' -l 'max-org-event-streams' -d 'Event streams all the devices of one organisation may hold open at once (on this instance); one more is refused with 429.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-user-requests' -l 'max-user-requests' -d 'Requests of one user\'s devices in progress at once, each holding a connection (an event stream for as long as it is open; on this instance); one more is refused with 429.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" max-org-requests' -l 'max-org-requests' -d 'Requests of one organisation\'s devices in progress at once (on this instance); one more is refused with 429.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay serve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay init" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay init" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay init" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay init" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay init" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay init" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay org" -eq 1' -fa 'add' -d 'Add an organisation (to a relay made by `vfs-relay init` or `serve`).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay org" -eq 1' -fa 'list' -d 'List organisations: name, users.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay org" -eq 1' -fa 'set' -d 'Set an organisation\'s settings: its minimum retention of transfers, what share links may do, which cloud versions are kept.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay org" -eq 1' -fa 'show' -d 'Show an organisation\'s settings: its minimum retention, what share links may do, which cloud versions are kept.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org add" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org add" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org add" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org add" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org add" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org list" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org list" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org list" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org list" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org list" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org list" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" min-retention' -l 'min-retention' -d 'Keep every transfer until delivered or this long (30d), or none.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" links' -l 'links' -d 'Whether users may make share links and file requests.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" link-max-expiry' -l 'link-max-expiry' -d 'The longest a link or file request may live (7d), or none.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" link-max-downloads' -l 'link-max-downloads' -d 'The most downloads a link may allow, or none.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" link-max-size' -l 'link-max-size' -d 'The largest file a link may hold or a request take (2G), or none.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" cloud-versions' -l 'cloud-versions' -d 'Which earlier cloud versions to keep: staggered (the default), all, days:N or none.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org set" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org show" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org show" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org show" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org show" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org show" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org show" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay org show" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay user" -eq 1' -fa 'add' -d 'Add a user to an organisation and print a one-time enrolment code for their first device.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay user" -eq 1' -fa 'remove' -d 'Remove a user and everything of theirs: devices, cloud files, groups, uploads, codes.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay user" -eq 1' -fa 'disable' -d 'Disable a user: every device is logged out at once (its token is refused, it gets the logout event; it erases nothing), and no new device, code or sign-in is accepted until enable.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay user" -eq 1' -fa 'enable' -d 'Let a disabled user back in; their devices enrol again with new codes (vfs-relay invite).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay user" -eq 1' -fa 'set' -d 'Change a user\'s role.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay user" -eq 1' -fa 'cut-chain' -d 'Cut a user\'s stored device chain back to the statements that verify.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay user" -eq 1' -fa 'reset-chain' -d 'Delete a user\'s device chain, so that their next device starts a new one.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user add" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user add" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user add" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user add" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user add" org' -l 'org' -d 'The user\'s organisation.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user add" admin' -l 'admin' -d 'The user administers the organisation (may change its approved apps).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user add" expires' -l 'expires' -d 'Minutes the enrolment code stays valid.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user add" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user remove" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user remove" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user remove" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user remove" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user remove" y yes' -l 'yes' -s 'y' -d 'Do not ask for confirmation (needed when not on a terminal).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user remove" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user disable" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user disable" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user disable" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user disable" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user disable" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user disable" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user enable" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user enable" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user enable" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user enable" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user enable" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user enable" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user set" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user set" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user set" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user set" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user set" admin' -l 'admin' -d 'The user administers the organisation (may change its approved apps and sign in to the admin page).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user set" no-admin' -l 'no-admin' -d 'The user administers the organisation (may change its approved apps and sign in to the admin page).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user set" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user set" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user cut-chain" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user cut-chain" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user cut-chain" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user cut-chain" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user cut-chain" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user cut-chain" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user reset-chain" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user reset-chain" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user reset-chain" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user reset-chain" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user reset-chain" y yes' -l 'yes' -s 'y' -d 'Do not ask for confirmation (needed when not on a terminal).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user reset-chain" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay user reset-chain" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay group" -eq 1' -fa 'add' -d 'Add an empty group of people to an organisation.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay group" -eq 1' -fa 'list' -d 'List an organisation\'s groups of people: name, members.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay group" -eq 1' -fa 'member' -d 'Add, remove or list a group\'s members.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group add" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group add" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group add" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group add" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group add" org' -l 'org' -d 'The organisation.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group add" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group list" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group list" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group list" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group list" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group list" org' -l 'org' -d 'The organisation.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group list" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group list" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay group member" -eq 1' -fa 'add' -d 'Add a user of the organisation to a group.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay group member" -eq 1' -fa 'remove' -d 'Remove a member from a group: nothing sent to the group from then on reaches them.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay group member" -eq 1' -fa 'list' -d 'List a group\'s members\' email addresses.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member add" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member add" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member add" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member add" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member add" org' -l 'org' -d 'The organisation.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member add" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member remove" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member remove" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member remove" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member remove" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member remove" org' -l 'org' -d 'The organisation.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member remove" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member list" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member list" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member list" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member list" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member list" org' -l 'org' -d 'The organisation.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member list" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member list" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay group member list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay invite" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay invite" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay invite" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay invite" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay invite" expires' -l 'expires' -d 'Minutes the code stays valid.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay invite" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay invite" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay login-code" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay login-code" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay login-code" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay login-code" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay login-code" expires' -l 'expires' -d 'Minutes the code stays valid.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay login-code" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay login-code" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay alert" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay alert" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay alert" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay alert" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay alert" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay alert" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay users" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay users" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay users" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay users" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay users" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay users" org' -l 'org' -d 'Only this organisation\'s users.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay users" disabled' -l 'disabled' -d 'Only disabled users.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay users" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay users" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay devices" -eq 1' -fa 'list' -d 'List devices: user, id, name, platform, state.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay devices" -eq 1' -fa 'revoke' -d 'Log a device out (the operator\'s revoke): its token is refused at once, it gets the logout event, and what waited for it expires; it erases nothing (only its user\'s device chain removes a device).'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices list" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices list" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices list" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices list" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices list" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices list" user' -l 'user' -d 'Only this user\'s devices.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices list" active' -l 'active' -d 'Only devices not logged out.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices list" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices revoke" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices revoke" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices revoke" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices revoke" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices revoke" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay devices revoke" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay transfers" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay transfers" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_positional "vfs-relay transfers" -eq 1' -fa 'rm' -d 'Remove a transfer: its copies still waiting are cancelled and its ciphertext deleted, even before its organisation\'s minimum retention ends.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay transfers rm" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay transfers rm" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay transfers rm" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay transfers rm" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay transfers rm" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay transfers rm" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay stats" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay stats" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay stats" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay stats" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay stats" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay stats" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay stats" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay gc" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay gc" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay gc" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay gc" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay gc" grace' -l 'grace' -d 'Files younger than this many seconds are never taken for orphans (0 when the relay is stopped).' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay gc" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay gc" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay gc" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay backup" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay backup" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay backup" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay backup" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay backup" o output' -s 'o' -l 'output' -d 'The copy to write (must not exist).' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay backup" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay backup" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay migrate" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay migrate" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay migrate" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay migrate" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay migrate" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay migrate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy" from' -l 'from' -d 'The embedded relay\'s data folder.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy" to' -l 'to' -d 'The PostgreSQL database (postgres://USER@HOST[:PORT]/DB).' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy" blobs' -l 'blobs' -d 'Also copy the blob files into this folder (the one the PostgreSQL relays use).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy-blobs" from' -l 'from' -d 'The folder the relay kept its blobs in: its old --blobs DIR, else its data folder.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy-blobs" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy-blobs" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy-blobs" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy-blobs" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy-blobs" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay copy-blobs" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay unblock" data' -l 'data' -d 'The relay\'s data folder (default: $VFS_RELAY_DATA, else $VFS_HOME/relay).' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay unblock" database' -l 'database' -d 'A PostgreSQL database (postgres://USER@HOST[:PORT]/DB, or ?host=/socket/folder) instead of DIR/relay.sqlite: several relays can share it.' -rfka ''
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay unblock" blobs' -l 'blobs' -d 'Where blob and upload files live (default: the data folder); with several relays, a folder they all mount, or an S3-compatible bucket: s3://BUCKET[/PREFIX]?endpoint=URL&region=REGION.' -rfa '(__vfs-relay_complete_directories)'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay unblock" s3-credentials' -l 's3-credentials' -d 'With --blobs s3://…: a file holding the S3 access key as the AWS tools write it (aws_access_key_id = …, aws_secret_access_key = …); default: $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY.' -rF
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay unblock" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay unblock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-relay' -n '__vfs-relay_should_offer_completions_for_flags_or_options "vfs-relay help" version' -l 'version' -d 'Show the version.'
