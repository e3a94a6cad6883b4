function __vfs-unwrap_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-unwrap_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-unwrap_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-unwrap_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-unwrap_parse_tokens -S
    set -l unparsed_tokens (__vfs-unwrap_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-unwrap'
        __vfs-unwrap_parse_subcommand -r 2 'i/identity=+' 'j=+' 'K/keychain-identity=+' 'passcode-file=' 'passcode-fd=' 'passphrase-file=' 'passphrase-fd=' 'max-work-factor=' 'for=' 'C/directory=' 'O/stdout' 't/list' 'json' 'wildcards' 'strip-components=' 'f/force' 'skip-old-files' 'k/keep-old-files' 'v/verbose' 'passthrough' 'max-expansion=' 'no-backup' 'q/quiet' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __vfs-unwrap_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-unwrap_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-unwrap_parse_subcommand -S -a positional_count
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

function __vfs-unwrap_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-unwrap_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-unwrap_tokens -p)
    if test -z "$(__vfs-unwrap_tokens -t)"
        set -l index (count (__vfs-unwrap_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-unwrap' -f
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap"' -s 'i' -l 'identity' -d 'Use the identities in PATH: an age identity file (passphrase-protected too, plugin stubs AGE-PLUGIN-NAME-1… too), or an OpenSSH ssh-ed25519/ssh-rsa private key (\'-\' for stdin). Repeatable.' -rF
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap"' -s 'j' -d 'Use plugin NAME\'s identity without data (age-plugin-NAME on PATH). Repeatable.' -rfka ''
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap"' -s 'K' -l 'keychain-identity' -d 'Use the keychain identity NAME (\'all\' for every one). Repeatable.' -rfka '(vfs-keychain identity list --names </dev/null 2>/dev/null)'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from the first line of PATH.' -rF
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" passphrase-fd' -l 'passphrase-fd' -d 'Read the passphrase from file descriptor N.' -rfka ''
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" max-work-factor' -l 'max-work-factor' -d 'Refuse scrypt work factors above N (1-30).' -rfka ''
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" for' -l 'for' -d 'Release the content only if the policy approves APP.' -rfka '(vfs-policy list --apps </dev/null 2>/dev/null)'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" C directory' -s 'C' -l 'directory' -d 'Extract into DIR (default: the current folder).' -rfa '(__vfs-unwrap_complete_directories)'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" O stdout' -s 'O' -l 'stdout' -d 'Write the content of the (selected) files to stdout, one after another.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" list t' -s 't' -l 'list' -d 'Print the manifest (its sender is an unverified claim) instead of extracting.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" json' -l 'json' -d 'With --list, print the whole manifest as JSON.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" wildcards' -l 'wildcards' -d 'Take each MEMBER as a glob (\'*\' also matches \'/\'), not literally.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" strip-components' -l 'strip-components' -d 'Remove N leading components from each name; shorter names are not extracted.' -rfka ''
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" f force' -l 'force' -s 'f' -d 'Replace existing files and links.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" skip-old-files' -l 'skip-old-files' -d 'Keep existing files and links; leave those entries out, silently.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" k keep-old-files' -s 'k' -l 'keep-old-files' -d 'Fail if a file or link exists (the default).'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" v verbose' -l 'verbose' -s 'v' -d 'List each member extracted, or written by --stdout, on stderr.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" passthrough' -l 'passthrough' -d 'Copy input that is not age out unchanged instead of failing.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" max-expansion' -l 'max-expansion' -d 'Refuse content more than RATIO times the bundle\'s size (0: no cap).' -rfka ''
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" no-backup' -l 'no-backup' -d 'Mark what is written to be left out of backups (nodump; CACHEDIR.TAG in new folders).'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" q quiet' -l 'quiet' -s 'q' -d 'No progress bar.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_positional "vfs-unwrap" -eq 1' -F
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_positional "vfs-unwrap" -eq 2' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-unwrap' -n '__vfs-unwrap_should_offer_completions_for_flags_or_options "vfs-unwrap help" version' -l 'version' -d 'Show the version.'
