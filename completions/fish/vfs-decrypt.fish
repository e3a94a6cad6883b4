function __vfs-decrypt_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-decrypt_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-decrypt_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-decrypt_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-decrypt_parse_tokens -S
    set -l unparsed_tokens (__vfs-decrypt_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-decrypt'
        __vfs-decrypt_parse_subcommand 1 'i/identity=+' 'j=+' 'K/keychain-identity=+' 'passcode-file=' 'passcode-fd=' 'passphrase-file=' 'passphrase-fd=' 'max-work-factor=' 'o/output=' 'no-backup' 'q/quiet' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __vfs-decrypt_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-decrypt_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-decrypt_parse_subcommand -S -a positional_count
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

function __vfs-decrypt_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-decrypt_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-decrypt_tokens -p)
    if test -z "$(__vfs-decrypt_tokens -t)"
        set -l index (count (__vfs-decrypt_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-decrypt' -f
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt"' -s 'i' -l 'identity' -d 'Use the identities in PATH: an age identity file (passphrase-protected too, plugin stubs AGE-PLUGIN-NAME-1… too), or an OpenSSH ssh-ed25519/ssh-rsa private key (\'-\' for stdin). Repeatable.' -rF
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt"' -s 'j' -d 'Use plugin NAME\'s identity without data (age-plugin-NAME on PATH). Repeatable.' -rfka ''
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt"' -s 'K' -l 'keychain-identity' -d 'Use the keychain identity NAME (\'all\' for every one). Repeatable.' -rfka '(vfs-keychain identity list --names </dev/null 2>/dev/null)'
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from the first line of PATH.' -rF
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt" passphrase-fd' -l 'passphrase-fd' -d 'Read the passphrase from file descriptor N.' -rfka ''
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt" max-work-factor' -l 'max-work-factor' -d 'Refuse scrypt work factors above N (1-30).' -rfka ''
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt" o output' -s 'o' -l 'output' -d 'Write the plaintext to OUT.' -rF
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt" no-backup' -l 'no-backup' -d 'Mark what is written to be left out of backups (nodump; CACHEDIR.TAG in new folders).'
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt" q quiet' -l 'quiet' -s 'q' -d 'No progress bar.'
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_positional "vfs-decrypt" -eq 1' -F
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_positional "vfs-decrypt" -eq 2' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-decrypt' -n '__vfs-decrypt_should_offer_completions_for_flags_or_options "vfs-decrypt help" version' -l 'version' -d 'Show the version.'
