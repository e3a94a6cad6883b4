function __vfs-share_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-share_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-share_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-share_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-share_parse_tokens -S
    set -l unparsed_tokens (__vfs-share_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-share'
        __vfs-share_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'send'
            __vfs-share_parse_subcommand -r 1 'expires=' 'downloads=' 'p/passphrase' 'passphrase-file=' 'passphrase-fd=' 'work-factor=' 'json' 'q/quiet' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'request'
            __vfs-share_parse_subcommand 0 'expires=' 'uploads=' 'json' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'list'
            __vfs-share_parse_subcommand 0 'json' 'requests' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'revoke'
            __vfs-share_parse_subcommand 1 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'help'
            __vfs-share_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-share_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-share_parse_subcommand -S -a positional_count
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

function __vfs-share_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-share_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-share_tokens -p)
    if test -z "$(__vfs-share_tokens -t)"
        set -l index (count (__vfs-share_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-share' -f
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_positional "vfs-share" -eq 1' -fa 'send' -d 'Share files and folders: print a link and a command for a terminal.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_positional "vfs-share" -eq 1' -fa 'request' -d 'Ask someone without a device for a file: print a link and the command that sends one.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_positional "vfs-share" -eq 1' -fa 'list' -d 'List your links with each download, and your file requests with each file sent in.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_positional "vfs-share" -eq 1' -fa 'revoke' -d 'Revoke a link (its next GET is 410, its ciphertext deleted) or a file request (it takes nothing more).'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_positional "vfs-share" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" expires' -l 'expires' -d 'The link stops working after DURATION (3d, 12h; the relay\'s default is 7d).' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" downloads' -l 'downloads' -d 'The link allows N downloads, then answers 410.' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" p passphrase' -l 'passphrase' -s 'p' -d 'Encrypt with a passphrase (scrypt) instead of recipients.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from the first line of PATH.' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" passphrase-fd' -l 'passphrase-fd' -d 'Read the passphrase from file descriptor N.' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" work-factor' -l 'work-factor' -d 'scrypt work factor log2(N) for -p (1-30).' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" json' -l 'json' -d 'Print JSON (id, url, command, size, expires, downloads).'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" q quiet' -l 'quiet' -s 'q' -d 'No progress bar.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_positional "vfs-share send" -ge 1' -F
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share send" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share request" expires' -l 'expires' -d 'The link takes files until DURATION has passed (3d, 12h; the relay\'s default is 7d).' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share request" uploads' -l 'uploads' -d 'The link takes N files, then answers 410.' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share request" json' -l 'json' -d 'Print JSON (id, url, command, recipients, expires, uploads).'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share request" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share request" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share request" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share request" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share request" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share request" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share request" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share request" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share list" json' -l 'json' -d 'Print a JSON array of links (id, size, created, expires, maxDownloads, downloads: [{at, size, address}], revoked).'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share list" requests' -l 'requests' -d 'Only the file requests; with --json an array of them (id, recipients, devices, created, expires, maxUploads, uploads: [{transfer, at, size, address, name}], revoked).'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share list" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share list" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share list" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share list" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share list" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share list" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share list" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share revoke" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share revoke" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share revoke" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share revoke" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share revoke" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share revoke" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share revoke" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share revoke" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-share' -n '__vfs-share_should_offer_completions_for_flags_or_options "vfs-share help" version' -l 'version' -d 'Show the version.'
