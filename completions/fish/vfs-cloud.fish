function __vfs-cloud_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-cloud_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-cloud_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-cloud_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-cloud_parse_tokens -S
    set -l unparsed_tokens (__vfs-cloud_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-cloud'
        __vfs-cloud_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'ls'
            __vfs-cloud_parse_subcommand 1 'l' 'h/human-readable' 'R' 'json' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'help'
        case 'mkdir'
            __vfs-cloud_parse_subcommand -r 1 'p' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'put'
            __vfs-cloud_parse_subcommand -r 1 'r/recursive' 'f/force' 'base=' 'q/quiet' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'get'
            __vfs-cloud_parse_subcommand 1 'o=' 'C=' 'stdout' 'raw' 'r/recursive' 'f/force' 'at=' 'version-id=' 'q/quiet' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'mv'
            __vfs-cloud_parse_subcommand 2 'f' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'rm'
            __vfs-cloud_parse_subcommand -r 1 'r' 'f' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'du'
            __vfs-cloud_parse_subcommand 1 'json' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'rekey'
            __vfs-cloud_parse_subcommand 1 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'conflicts'
            __vfs-cloud_parse_subcommand 1 'json' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'log'
            __vfs-cloud_parse_subcommand 1 'json' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'trash'
            __vfs-cloud_parse_subcommand 0 'json' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'restore'
            __vfs-cloud_parse_subcommand 1 'at=' 'r/recursive' 'json' 'retry-for=' 'token-file=' 'identity-file=' 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'help'
            __vfs-cloud_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-cloud_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-cloud_parse_subcommand -S -a positional_count
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

function __vfs-cloud_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-cloud_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-cloud_tokens -p)
    if test -z "$(__vfs-cloud_tokens -t)"
        set -l index (count (__vfs-cloud_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-cloud' -f
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'ls' -d 'List a cloud folder (or show one file).'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'mkdir' -d 'Make cloud folders.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'put' -d 'Encrypt files (and folders with -r) to all your devices and store them in the cloud.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'get' -d 'Download and decrypt a cloud file (a folder with -r), streaming while it downloads.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'mv' -d 'Rename or move a cloud file or folder.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'rm' -d 'Remove cloud files, and folders with -r.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'du' -d 'Show what your cloud files use on the relay, and your quota.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'rekey' -d 'Re-encrypt every cloud file\'s key to your current devices, without uploading the files again.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'conflicts' -d 'List the conflict copies puts kept beside newer versions.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'log' -d 'List the versions of a cloud file, newest first.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'trash' -d 'List the cloud files that were removed, newest removal first.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'restore' -d 'Put a cloud file (a folder\'s tree with -r) back as it was at a time.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" l' -s 'l' -d 'Long format: kind, plaintext size, modification time, path.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" h human-readable' -s 'h' -l 'human-readable' -d 'Sizes as 1.2 MiB instead of bytes.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" R' -s 'R' -d 'List folders recursively.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" json' -l 'json' -d 'Print a JSON array of entries (id, name, path, kind, size, sha256, created, updated, and a file\'s version).'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud ls" help' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mkdir" p' -s 'p' -d 'Make missing parent folders too; an existing folder is fine.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mkdir" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mkdir" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mkdir" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mkdir" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mkdir" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mkdir" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mkdir" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mkdir" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" r recursive' -l 'recursive' -s 'r' -d 'Put folders with everything in them.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" f force' -l 'force' -s 'f' -d 'Replace cloud files that exist, whatever version is there.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" base' -l 'base' -d 'Replace the cloud file only if it is still at VERSION (ls --json shows it).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" q quiet' -l 'quiet' -s 'q' -d 'No progress bar.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_positional "vfs-cloud put" -ge 1' -F
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud put" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" o' -s 'o' -d 'Write to FILE.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" C' -s 'C' -d 'Write into DIR under the cloud name.' -rfa '(__vfs-cloud_complete_directories)'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" stdout' -l 'stdout' -d 'Write to standard output, streaming.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" raw' -l 'raw' -d 'Write the ciphertext as stored, without decrypting.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" r recursive' -l 'recursive' -s 'r' -d 'Get a folder with everything in it.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" f force' -l 'force' -s 'f' -d 'Replace files that exist.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" at' -l 'at' -d 'Get the version the file had at this time.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" version-id' -l 'version-id' -d 'Get this version of the file (vfs-cloud log lists them).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" q quiet' -l 'quiet' -s 'q' -d 'No progress bar.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud get" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mv" f' -s 'f' -d 'Replace what exists at the destination.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mv" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mv" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mv" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mv" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mv" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mv" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mv" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud mv" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rm" r' -s 'r' -d 'Remove folders and everything in them.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rm" f' -s 'f' -d 'Do not ask; a missing path is not an error.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rm" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rm" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rm" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rm" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rm" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rm" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rm" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rm" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud du" json' -l 'json' -d 'Print JSON (files, folders, bytes, used, quota).'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud du" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud du" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud du" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud du" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud du" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud du" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud du" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud du" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rekey" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rekey" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rekey" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rekey" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rekey" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rekey" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rekey" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud rekey" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud conflicts" json' -l 'json' -d 'Print a JSON array of {path, exists, conflicts: [{path, device, date}]}.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud conflicts" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud conflicts" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud conflicts" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud conflicts" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud conflicts" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud conflicts" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud conflicts" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud conflicts" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud log" json' -l 'json' -d 'Print a JSON array of {id, version, path, size, sha256, device, since, until}.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud log" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud log" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud log" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud log" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud log" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud log" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud log" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud log" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud trash" json' -l 'json' -d 'Print a JSON array of {id, version, path, size, sha256, device, since, until}.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud trash" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud trash" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud trash" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud trash" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud trash" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud trash" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud trash" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud trash" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud restore" at' -l 'at' -d 'The time to go back to.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud restore" r recursive' -l 'recursive' -s 'r' -d 'Restore a folder\'s whole tree.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud restore" json' -l 'json' -d 'Print JSON: {restored: [entries], removed: [paths]}.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud restore" retry-for' -l 'retry-for' -d 'Try again after a temporary failure (the relay down or restarting, its disk full, busy) for up to DURATION, with growing waits (30s, 5m, 1h; 0: never). Default 5m, or $VFS_RETRY_FOR.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud restore" token-file' -l 'token-file' -d 'Keep the device\'s relay token in PATH (mode 0600) instead of the keychain (in a systemd unit: the credential vfs-token in $CREDENTIALS_DIRECTORY when this is not given).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud restore" identity-file' -l 'identity-file' -d 'Keep the device\'s age identity in PATH instead of the keychain, its signing key in PATH.ed25519, both mode 0600 (in a systemd unit: the credentials vfs-identity and vfs-identity.ed25519).' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud restore" timeout' -l 'timeout' -d 'Give up on a relay that does not connect, or answer a request, within SECONDS (default 10 to connect, 60 an answer).' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud restore" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud restore" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud restore" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud restore" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-cloud' -n '__vfs-cloud_should_offer_completions_for_flags_or_options "vfs-cloud help" version' -l 'version' -d 'Show the version.'
