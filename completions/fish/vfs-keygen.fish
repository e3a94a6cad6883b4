function __vfs-keygen_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-keygen_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-keygen_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-keygen_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-keygen_parse_tokens -S
    set -l unparsed_tokens (__vfs-keygen_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-keygen'
        __vfs-keygen_parse_subcommand 1 'o/output=' 'y' 'pq' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __vfs-keygen_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-keygen_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-keygen_parse_subcommand -S -a positional_count
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

function __vfs-keygen_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-keygen_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-keygen_tokens -p)
    if test -z "$(__vfs-keygen_tokens -t)"
        set -l index (count (__vfs-keygen_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-keygen' -f
complete -c 'vfs-keygen' -n '__vfs-keygen_should_offer_completions_for_flags_or_options "vfs-keygen" o output' -s 'o' -l 'output' -d 'Write the identity to FILE (created 0600, never overwritten).' -rF
complete -c 'vfs-keygen' -n '__vfs-keygen_should_offer_completions_for_flags_or_options "vfs-keygen" y' -s 'y' -d 'Print the recipients of the identities in INPUT (or stdin).'
complete -c 'vfs-keygen' -n '__vfs-keygen_should_offer_completions_for_flags_or_options "vfs-keygen" pq' -l 'pq' -d 'Make a hybrid post-quantum identity (ML-KEM-768 + X25519, age1pq1…).'
complete -c 'vfs-keygen' -n '__vfs-keygen_should_offer_completions_for_positional "vfs-keygen" -eq 1' -F
complete -c 'vfs-keygen' -n '__vfs-keygen_should_offer_completions_for_flags_or_options "vfs-keygen" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keygen' -n '__vfs-keygen_should_offer_completions_for_flags_or_options "vfs-keygen" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keygen' -n '__vfs-keygen_should_offer_completions_for_positional "vfs-keygen" -eq 2' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-keygen' -n '__vfs-keygen_should_offer_completions_for_flags_or_options "vfs-keygen help" version' -l 'version' -d 'Show the version.'
