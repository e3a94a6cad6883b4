function __vfs-wrap_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-wrap_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-wrap_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-wrap_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-wrap_parse_tokens -S
    set -l unparsed_tokens (__vfs-wrap_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-wrap'
        __vfs-wrap_parse_subcommand -r 1 'r/recipient=+' 'R/recipients-file=+' 'i/identity=+' 'j=+' 'K/keychain-identity=+' 'passcode-file=' 'passcode-fd=' 'p/passphrase' 'passphrase-file=' 'passphrase-fd=' 'work-factor=' 'g/group=+' 'access-id=' 'name=' 'compress' 'no-compress' 'C/directory=+' 'T/files-from=+' 'null' 'exclude=+' 'X/exclude-from=+' 'skip-changed' 'v/verbose' 'a/armor' 'o/output=' 'q/quiet' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __vfs-wrap_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-wrap_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-wrap_parse_subcommand -S -a positional_count
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

function __vfs-wrap_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-wrap_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-wrap_tokens -p)
    if test -z "$(__vfs-wrap_tokens -t)"
        set -l index (count (__vfs-wrap_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-wrap' -f
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap"' -s 'r' -l 'recipient' -d 'Encrypt to RECIPIENT (age1…, post-quantum age1pq1…, an ssh-ed25519/ssh-rsa public key, or a plugin\'s age1NAME1…). Repeatable.' -rfka ''
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap"' -s 'R' -l 'recipients-file' -d 'Encrypt to the recipients listed in PATH (\'-\' for stdin). Repeatable.' -rF
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap"' -s 'i' -l 'identity' -d 'Encrypt to the recipients of the identities in PATH. Repeatable.' -rF
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap"' -s 'j' -d 'Use plugin NAME\'s identity without data (age-plugin-NAME on PATH). Repeatable.' -rfka ''
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap"' -s 'K' -l 'keychain-identity' -d 'Use the keychain identity NAME (\'all\' for every one). Repeatable.' -rfka '(vfs-keychain identity list --names </dev/null 2>/dev/null)'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" p passphrase' -l 'passphrase' -s 'p' -d 'Encrypt with a passphrase (scrypt) instead of recipients.'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" passphrase-file' -l 'passphrase-file' -d 'Read the passphrase from the first line of PATH.' -rF
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" passphrase-fd' -l 'passphrase-fd' -d 'Read the passphrase from file descriptor N.' -rfka ''
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" work-factor' -l 'work-factor' -d 'scrypt work factor log2(N) for -p (1-30).' -rfka ''
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap"' -s 'g' -l 'group' -d 'Encrypt to the recipients of GROUP ($VFS_HOME/groups/GROUP) and record it as the group id.' -rfka '(sh -c \'d=${VFS_HOME:-}; case ${XDG_DATA_HOME:-} in /*) d=${d:-$XDG_DATA_HOME/vfs};; esac; ls -- "${d:-$HOME/.local/share/vfs}/groups"\' 2>/dev/null)'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" access-id' -l 'access-id' -d 'Record ID as the bundle\'s access control id.' -rfka ''
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" name' -l 'name' -d 'Store standard input under NAME.' -rfka ''
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" compress' -l 'compress' -d 'Always compress the archive with zstd (--compress), or never (--no-compress); by default, when samples of the content show it shrinks by 3% or more.'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" no-compress' -l 'no-compress' -d 'Always compress the archive with zstd (--compress), or never (--no-compress); by default, when samples of the content show it shrinks by 3% or more.'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap"' -s 'C' -l 'directory' -d 'Take the PATHs and -T lists that follow from DIR, as tar -C. Repeatable.' -rfa '(__vfs-wrap_complete_directories)'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap"' -s 'T' -l 'files-from' -d 'Also wrap the paths listed in FILE, one a line (\'-\' for stdin). Repeatable.' -rF
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" null' -l 'null' -d '-T lists are NUL-separated (find -print0), not one path a line.'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap"' -l 'exclude' -d 'Leave out members matching the glob PATTERN, as tar --exclude does. Repeatable.' -rfka ''
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap"' -s 'X' -l 'exclude-from' -d 'Leave out members matching the patterns in FILE, one a line. Repeatable.' -rF
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" skip-changed' -l 'skip-changed' -d 'Leave out files that change while read (exit 1) instead of failing.'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" v verbose' -l 'verbose' -s 'v' -d 'List each member on stderr as it is added.'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" a armor' -l 'armor' -s 'a' -d 'Write PEM-armored (ASCII) output.'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" o output' -s 'o' -l 'output' -d 'Write the bundle to OUT (\'-\' forces stdout, even a terminal).' -rF
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" q quiet' -l 'quiet' -s 'q' -d 'No progress bar.'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_positional "vfs-wrap" -ge 1' -F
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_positional "vfs-wrap" -eq 2' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-wrap' -n '__vfs-wrap_should_offer_completions_for_flags_or_options "vfs-wrap help" version' -l 'version' -d 'Show the version.'
