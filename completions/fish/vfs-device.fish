function __vfs-device_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-device_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-device_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-device_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-device_parse_tokens -S
    set -l unparsed_tokens (__vfs-device_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-device'
        __vfs-device_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'enroll'
            __vfs-device_parse_subcommand 2 'name=' 'platform=' 'force' 'cacert=' 'insecure-http' 'recipient=' 'accept-chain=' 'send-only' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'recovery-key'
            __vfs-device_parse_subcommand 0 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'recover'
            __vfs-device_parse_subcommand 2 'name=' 'platform=' 'recovery-key-file=' 'cacert=' 'insecure-http' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'invite'
            __vfs-device_parse_subcommand 0 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'list'
            __vfs-device_parse_subcommand 0 'json' 'accept-chain=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'approve'
            __vfs-device_parse_subcommand 1 'fingerprint=' 'send-only' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'rename'
            __vfs-device_parse_subcommand 2 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'revoke'
            __vfs-device_parse_subcommand 1 'y/yes' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'group'
            __vfs-device_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'create'
                __vfs-device_parse_subcommand -r 2 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
            case 'add'
                __vfs-device_parse_subcommand -r 2 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
            case 'remove'
                __vfs-device_parse_subcommand -r 2 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
            case 'list'
                __vfs-device_parse_subcommand 0 'json' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
            case 'delete'
                __vfs-device_parse_subcommand 1 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
            end
        case 'status'
            __vfs-device_parse_subcommand 0 'json' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'trust'
            __vfs-device_parse_subcommand 1 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'fingerprint'
            __vfs-device_parse_subcommand 0 'signing-key' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'verify'
            __vfs-device_parse_subcommand 1 'confirm=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'users'
            __vfs-device_parse_subcommand 1 'json' 'names' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'admin-link'
            __vfs-device_parse_subcommand 0 'json' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'help'
            __vfs-device_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-device_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-device_parse_subcommand -S -a positional_count
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

function __vfs-device_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-device_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-device_tokens -p)
    if test -z "$(__vfs-device_tokens -t)"
        set -l index (count (__vfs-device_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-device' -f
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'enroll' -d 'Enrol this machine with a relay using a one-time code.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'recovery-key' -d 'Make your recovery key: printed once, to write down; it reads your cloud files and approves a new device.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'recover' -d 'Enrol this machine with an enrolment code and approve it with your recovery key, when every device is lost.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'invite' -d 'Print a one-time code that enrols another device of yours.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'list' -d 'List your devices: name, platform, fingerprint, last seen, status (pending: not approved yet).'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'approve' -d 'Approve a pending device into your device chain, after comparing its fingerprint.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'rename' -d 'Rename one of your devices.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'revoke' -d 'Log a device out (a lost or retired machine).'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'group' -d 'Manage device groups (named sets of your own devices).'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'status' -d 'Is the relay reachable, and is this device still valid?'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'trust' -d 'Accept the key a device has now (after it enrolled again).'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'fingerprint' -d 'Print this device\'s fingerprint (or its public signing key).'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'verify' -d 'Show the safety code you and another user compare, and record that it matched.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'users' -d 'List the users of your organisation: whom vfs-push --to can send to.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'admin-link' -d 'Print the relay\'s admin web page address and a one-time code to sign in there.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" name' -l 'name' -d 'This device\'s name.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" platform' -l 'platform' -d 'The platform shown in listings.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" force' -l 'force' -d 'Enrol again on an enrolled machine, and revoke its old device.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" cacert' -l 'cacert' -d 'Trust the CA certificates in this PEM file for the https:// relay (kept for later commands).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" insecure-http' -l 'insecure-http' -d 'Allow plain http:// to a relay beyond this machine (a network trusted end to end).'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" recipient' -l 'recipient' -d 'The recipient of the plugin identity stub in --identity-file, when the file does not name it.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" accept-chain' -l 'accept-chain' -d 'Trust your existing device chain, this device has never seen, if one of its devices has this fingerprint.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" send-only' -l 'send-only' -d 'Enrol a device that only sends (a server\'s cron job): it signs its pushes, and nothing is ever encrypted to it.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device enroll" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recovery-key" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recovery-key" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recovery-key" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recovery-key" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recovery-key" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recovery-key" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recovery-key" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" name' -l 'name' -d 'This device\'s name.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" platform' -l 'platform' -d 'The platform shown in listings.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" recovery-key-file' -l 'recovery-key-file' -d 'Read the recovery key from FILE instead of the terminal.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" cacert' -l 'cacert' -d 'Trust the CA certificates in this PEM file for the https:// relay (kept for later commands).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" insecure-http' -l 'insecure-http' -d 'Allow plain http:// to a relay beyond this machine (a network trusted end to end).'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device recover" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device invite" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device invite" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device invite" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device invite" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device invite" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device invite" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device invite" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device list" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device list" accept-chain' -l 'accept-chain' -d 'Trust your device chain, this device has never seen, if one of its devices has this fingerprint.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device list" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device list" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device list" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device list" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device list" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device list" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device approve" fingerprint' -l 'fingerprint' -d 'The fingerprint the new device shows (vfs-device fingerprint).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device approve" send-only' -l 'send-only' -d 'Approve a device enrolled with --send-only as send-only: never a recipient.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device approve" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device approve" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device approve" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device approve" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device approve" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device approve" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device approve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device rename" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device rename" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device rename" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device rename" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device rename" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device rename" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device rename" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device revoke" y yes' -l 'yes' -s 'y' -d 'Do not ask for confirmation on a terminal.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device revoke" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device revoke" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device revoke" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device revoke" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device revoke" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device revoke" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device revoke" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device group" -eq 1' -fa 'create' -d 'Create a group, optionally with its first members.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device group" -eq 1' -fa 'add' -d 'Add devices to a group.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device group" -eq 1' -fa 'remove' -d 'Remove devices from a group.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device group" -eq 1' -fa 'list' -d 'List your groups and their members.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_positional "vfs-device group" -eq 1' -fa 'delete' -d 'Delete a group (its devices stay).'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group create" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group create" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group create" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group create" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group create" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group create" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group create" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group add" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group add" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group add" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group add" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group add" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group add" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group remove" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group remove" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group remove" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group remove" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group remove" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group remove" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group list" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group list" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group list" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group list" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group list" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group list" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group list" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group delete" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group delete" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group delete" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group delete" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group delete" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group delete" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device group delete" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device status" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device status" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device status" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device status" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device status" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device status" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device status" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device trust" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device trust" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device trust" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device trust" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device trust" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device trust" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device trust" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device fingerprint" signing-key' -l 'signing-key' -d 'Print the public signing key (base64) instead.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device fingerprint" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device fingerprint" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device fingerprint" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device fingerprint" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device fingerprint" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device fingerprint" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device fingerprint" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device verify" confirm' -l 'confirm' -d 'The code USER read out: recorded as verified if it is this one.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device verify" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device verify" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device verify" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device verify" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device verify" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device verify" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device verify" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device users" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device users" names' -l 'names' -d 'Never ask for the passcode, and wait 5 seconds at most for the relay (for completion).'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device users" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device users" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device users" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device users" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device users" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device users" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device users" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device admin-link" json' -l 'json' -d 'Print JSON.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device admin-link" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device admin-link" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device admin-link" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device admin-link" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device admin-link" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device admin-link" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device admin-link" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-device' -n '__vfs-device_should_offer_completions_for_flags_or_options "vfs-device help" version' -l 'version' -d 'Show the version.'
