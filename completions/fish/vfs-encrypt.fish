function __vfs-encrypt_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-encrypt_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-encrypt_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-encrypt_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-encrypt_parse_tokens -S
    set -l unparsed_tokens (__vfs-encrypt_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-encrypt'
        __vfs-encrypt_parse_subcommand 1 'r/recipient=+' 'R/recipients-file=+' 'i/identity=+' 'j=+' 'K/keychain-identity=+' 'passcode-file=' 'passcode-fd=' 'p/passphrase' 'passphrase-file=' 'passphrase-fd=' 'work-factor=' 'a/armor' 'o/output=' 'q/quiet' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __vfs-encrypt_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-encrypt_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-encrypt_parse_subcommand -S -a positional_count
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

function __vfs-encrypt_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-encrypt_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-encrypt_tokens -p)
    if test -z "$(__vfs-encrypt_tokens -t)"
        set -l index (count (__vfs-encrypt_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-encrypt' -f
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt"' -s 'r' -l 'recipient' -d 'Encrypt to RECIPIENT (age1…, post-quantum age1pq1…, an ssh-ed25519/ssh-rsa public key, or a plugin\'s age1NAME1…). Repeatable.' -rfka ''
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt"' -s 'R' -l 'recipients-file' -d 'Encrypt to the recipients listed in PATH (\'-\' for stdin). Repeatable.' -rF
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt"' -s 'i' -l 'identity' -d 'Encrypt to the recipients of the identities in PATH. Repeatable.' -rF
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt"' -s 'j' -d 'Use plugin NAME\'s identity without data (age-plugin-NAME on PATH). Repeatable.' -rfka ''
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt"' -s 'K' -l 'keychain-identity' -d 'Use the keychain identity NAME (\'all\' for every one). Repeatable.' -rfka '(vfs-keychain identity list --names </dev/null 2>/dev/null)'
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt" p passphrase' -l 'passphrase' -s 'p' -d 'Encrypt with a passphrase (scrypt) instead of recipients.'
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from the first line of PATH.' -rF
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt" passphrase-fd' -l 'passphrase-fd' -d 'Read the passphrase from file descriptor N.' -rfka ''
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt" work-factor' -l 'work-factor' -d 'scrypt work factor log2(N) for -p (1-30).' -rfka ''
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt" a armor' -l 'armor' -s 'a' -d 'Write PEM-armored (ASCII) output.'
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt" o output' -s 'o' -l 'output' -d 'Write to OUT (\'-\' forces stdout, even a terminal).' -rF
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt" q quiet' -l 'quiet' -s 'q' -d 'No progress bar.'
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_positional "vfs-encrypt" -eq 1' -F
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_positional "vfs-encrypt" -eq 2' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-encrypt' -n '__vfs-encrypt_should_offer_completions_for_flags_or_options "vfs-encrypt help" version' -l 'version' -d 'Show the version.'
