function __vfs-fetch_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-fetch_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-fetch_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-fetch_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-fetch_parse_tokens -S
    set -l unparsed_tokens (__vfs-fetch_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-fetch'
        __vfs-fetch_parse_subcommand -r 1 'all' 'idle-wait=' 'C/directory=' 'for=' 'stdout' 'raw' 'decline=' 'watch' 'exec=' 'wipe-on-logout' 'verified-only' 'allow-unverified' 'max-size=' 'from=' 'json' 'h/human-readable' 'v/verbose' 'no-backup' 'q/quiet' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'help'
        switch $unparsed_tokens[1]
        case 'help'
            __vfs-fetch_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-fetch_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-fetch_parse_subcommand -S -a positional_count
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

function __vfs-fetch_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-fetch_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-fetch_tokens -p)
    if test -z "$(__vfs-fetch_tokens -t)"
        set -l index (count (__vfs-fetch_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-fetch' -f
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" all' -l 'all' -d 'Fetch every transfer in the inbox (complete ones first).'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" idle-wait' -l 'idle-wait' -d 'With --all, leave a transfer still uploading whose sender sends nothing for this many seconds in the inbox for a later fetch (exit 75).' -rfka ''
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" C directory' -s 'C' -l 'directory' -d 'Unpack into DIR (default: the current folder).' -rfa '(__vfs-fetch_complete_directories)'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" for' -l 'for' -d 'Release the content only if the policy approves APP.' -rfka '(vfs-policy list --apps </dev/null 2>/dev/null)'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" stdout' -l 'stdout' -d 'Write the content of a one-file transfer to stdout.'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" raw' -l 'raw' -d 'Write the transfer\'s ciphertext to stdout, as downloaded, without acknowledging it.'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" decline' -l 'decline' -d 'Decline the transfer ID (its sender sees "declined").' -rfka ''
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" watch' -l 'watch' -d 'Stay connected and fetch each transfer as it arrives.'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" exec' -l 'exec' -d 'With --watch, run CMD (sh -c) after each transfer.' -rfka ''
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" wipe-on-logout' -l 'wipe-on-logout' -d 'With --watch, shred DIR when another of your devices removes this one from your device chain (vfs-device revoke).'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" verified-only' -l 'verified-only' -d 'Refuse a transfer from another user whose safety code you have not confirmed (vfs-device verify).'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" allow-unverified' -l 'allow-unverified' -d 'Unpack a transfer whose sender\'s signature is missing, bad or unknown (said on stderr).'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" max-size' -l 'max-size' -d 'With --raw or --allow-unverified, take at most SIZE bytes of a transfer still uploading (default 8G).' -rfka ''
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" from' -l 'from' -d 'Only transfers from USER (an email address; yours for your own devices\' transfers), listed or with --all.' -rfka ''
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" json' -l 'json' -d 'Print the inbox as JSON.'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" h human-readable' -s 'h' -l 'human-readable' -d 'Sizes as 1.2 MiB instead of bytes.'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" v verbose' -l 'verbose' -s 'v' -d 'Name each transfer\'s verified sender and list each file and folder unpacked, on stderr.'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" no-backup' -l 'no-backup' -d 'Mark what is written to be left out of backups (nodump; CACHEDIR.TAG in new folders).'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" q quiet' -l 'quiet' -s 'q' -d 'No progress bar.'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch" help' -l 'help' -d 'Show help information.'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_positional "vfs-fetch" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-fetch' -n '__vfs-fetch_should_offer_completions_for_flags_or_options "vfs-fetch help" version' -l 'version' -d 'Show the version.'
