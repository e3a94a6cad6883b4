function __vfs-shred_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-shred_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-shred_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-shred_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-shred_parse_tokens -S
    set -l unparsed_tokens (__vfs-shred_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-shred'
        __vfs-shred_parse_subcommand -r 1 'n/passes=' 'z/zero' 'k/keep' 'u/remove' 'x/exact' 'r/recursive' 'remove-root' 'prune-empty' 'f/force' 'device' 'older-than=' 'include=+' 'exclude=+' 'dry-run' '0/null' 'verify' 'v/verbose' 'json' 'json-lines' 'q/quiet' 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'help'
            __vfs-shred_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-shred_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-shred_parse_subcommand -S -a positional_count
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

function __vfs-shred_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-shred_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-shred_tokens -p)
    if test -z "$(__vfs-shred_tokens -t)"
        set -l index (count (__vfs-shred_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-shred' -f
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" iterations n passes' -s 'n' -l 'passes' -l 'iterations' -d 'Random overwrite passes (0 only with -z; GNU shred makes 3).' -rfka ''
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" z zero' -s 'z' -l 'zero' -d 'Add a final pass of zeros.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" k keep' -s 'k' -l 'keep' -d 'Overwrite but do not remove.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" remove u' -s 'u' -l 'remove' -d 'Remove after overwriting (the default; GNU\'s --remove=HOW: unlink, wipe, wipesync).'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" exact x' -s 'x' -l 'exact' -d 'Overwrite up to the size, not to the end of the last block.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" r recursive' -s 'r' -l 'recursive' -d 'Descend into folders (removed too, unless a filter is given).'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" remove-root' -l 'remove-root' -d 'With a filter, remove the folders named too once everything in them went.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" prune-empty' -l 'prune-empty' -d 'With a filter, remove the subfolders this run emptied.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" f force' -s 'f' -l 'force' -d 'Overwrite files that have other hard links; make read-only files writable.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" device' -l 'device' -d 'Overwrite block devices named as PATH (never removed).'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" older-than' -l 'older-than' -d 'Only entries last modified more than AGE ago (30m, 12h, 7d; a unit is required).' -rfka ''
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred"' -l 'include' -d 'Only entries whose base name matches GLOB. Repeatable.' -rfka ''
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred"' -l 'exclude' -d 'Leave entries whose base name matches GLOB. Repeatable.' -rfka ''
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" dry-run' -l 'dry-run' -d 'Print what would be destroyed; touch nothing.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" 0 null' -s '0' -l 'null' -d 'With --dry-run: end each path with a NUL instead of a newline, as find -print0 (for xargs -0).'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" verify' -l 'verify' -d 'Read the last pass back from the device and check it.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" v verbose' -l 'verbose' -s 'v' -d 'List each entry destroyed on stderr.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" json' -l 'json' -d 'Print a JSON summary on stdout, with the paths destroyed and skipped.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" json-lines' -l 'json-lines' -d 'Print each entry as one JSON object a line on stdout as it goes, then the summary (for logs).'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" q quiet' -l 'quiet' -s 'q' -d 'No progress bar.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_positional "vfs-shred" -ge 1' -F
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_positional "vfs-shred" -eq 2' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-shred' -n '__vfs-shred_should_offer_completions_for_flags_or_options "vfs-shred help" version' -l 'version' -d 'Show the version.'
