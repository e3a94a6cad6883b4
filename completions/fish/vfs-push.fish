function __vfs-push_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-push_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-push_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-push_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-push_parse_tokens -S
    set -l unparsed_tokens (__vfs-push_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-push'
        __vfs-push_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'send'
            __vfs-push_parse_subcommand -r 1 'd/device=+' 'g/group=+' 'to=+' 'to-group=+' 'cc-me' 'verified-only' 'r/recursive' 'name=' 'expires=' 'wait' 'wait-all' 'cloud=' 'q/quiet' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'outbox'
            __vfs-push_parse_subcommand -r 1 'json' 'h/human-readable' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'help'
        case 'wait'
            __vfs-push_parse_subcommand -r 1 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'cancel'
            __vfs-push_parse_subcommand 1 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'resume'
            __vfs-push_parse_subcommand 0 'list' 'drop=' 'q/quiet' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'help'
            __vfs-push_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-push_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-push_parse_subcommand -S -a positional_count
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

function __vfs-push_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-push_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-push_tokens -p)
    if test -z "$(__vfs-push_tokens -t)"
        set -l index (count (__vfs-push_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-push' -f
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_positional "vfs-push" -eq 1' -fa 'send' -d 'Push files to devices (-d), groups (-g) and people (--to).'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_positional "vfs-push" -eq 1' -fa 'outbox' -d 'Every transfer this device sent (or those named), per target: uploading, pending, fetching, delivered, declined, expired or cancelled.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_positional "vfs-push" -eq 1' -fa 'wait' -d 'Wait until transfers were fetched or declined by every target, or expired or were cancelled.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_positional "vfs-push" -eq 1' -fa 'cancel' -d 'Withdraw a transfer: copies not yet fetched expire and the relay deletes the ciphertext.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_positional "vfs-push" -eq 1' -fa 'resume' -d 'Finish pushes that were interrupted (from the relay\'s offset); list or withdraw them.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_positional "vfs-push" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send"' -s 'd' -l 'device' -d 'A target device (name or id).' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send"' -s 'g' -l 'group' -d 'A target group.' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send"' -l 'to' -d 'A person: the email address of a user of your organisation (every approved device in their verified device chain); vfs-device users lists them.' -rfka '(vfs-device users --names </dev/null 2>/dev/null)'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send"' -l 'to-group' -d 'A group of people of your organisation (its administrators keep them): every member, as with --to.' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" cc-me' -l 'cc-me' -d 'With --to: also send to your own approved devices (not this one).'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" verified-only' -l 'verified-only' -d 'With --to: refuse a person whose safety code you have not confirmed (vfs-device verify).'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" r recursive' -l 'recursive' -s 'r' -d 'Push folders with everything in them.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" name' -l 'name' -d 'Store standard input under NAME.' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" expires' -l 'expires' -d 'Undelivered copies expire after DURATION (2d, 12h; the relay\'s default is 7d).' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" wait' -l 'wait' -d 'Wait until every target fetched or declined it, or it expired or was cancelled (with --to: one device of each person).'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" wait-all' -l 'wait-all' -d 'With --to: wait for every device of every person, not one of each.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" cloud' -l 'cloud' -d 'Also keep what is sent as the cloud file PATH (vfs-cloud), sharing its ciphertext with the transfer.' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" q quiet' -l 'quiet' -s 'q' -d 'No progress bar.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_positional "vfs-push send" -ge 1' -F
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push send" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push outbox" json' -l 'json' -d 'Print JSON (the relay\'s words: unattended for pending, initiated for fetching).'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push outbox" h human-readable' -s 'h' -l 'human-readable' -d 'Sizes as 1.2 MiB instead of bytes.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push outbox" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push outbox" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push outbox" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push outbox" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push outbox" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push outbox" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push outbox" help' -l 'help' -d 'Show help information.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push wait" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push wait" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push wait" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push wait" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push wait" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push wait" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push wait" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push cancel" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push cancel" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push cancel" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push cancel" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push cancel" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push cancel" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push cancel" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push resume" list' -l 'list' -d 'List the pending pushes instead of sending them.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push resume" drop' -l 'drop' -d 'Withdraw the pending push ID (its transfer cancelled, its upload and spool removed).' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push resume" q quiet' -l 'quiet' -s 'q' -d 'No progress bar.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push resume" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push resume" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push resume" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push resume" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push resume" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push resume" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push resume" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push resume" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-push' -n '__vfs-push_should_offer_completions_for_flags_or_options "vfs-push help" version' -l 'version' -d 'Show the version.'
