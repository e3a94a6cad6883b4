function __vfs-policy_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-policy_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-policy_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-policy_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-policy_parse_tokens -S
    set -l unparsed_tokens (__vfs-policy_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-policy'
        __vfs-policy_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'list'
            __vfs-policy_parse_subcommand 0 'policy=' 'relay' 'json' 'apps' 'version' 'h/help'
        case 'add'
            __vfs-policy_parse_subcommand 1 'policy=' 'relay' 'name=' 'group=+' 'type=+' 'expires=' 'token-file=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'update'
            __vfs-policy_parse_subcommand 1 'policy=' 'relay' 'name=' 'group=+' 'type=+' 'expires=' 'token-file=' 'passcode-file=' 'passcode-fd=' 'enable' 'disable' 'clear-groups' 'clear-types' 'no-expiry' 'version' 'h/help'
        case 'remove'
            __vfs-policy_parse_subcommand 1 'policy=' 'relay' 'token-file=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'check'
            __vfs-policy_parse_subcommand 1 'policy=' 'relay' 'group=' 'file=' 'type=' 'at=' 'json' 'version' 'h/help'
        case 'export'
            __vfs-policy_parse_subcommand 0 'policy=' 'relay' 'o/output=' 'version' 'h/help'
        case 'import'
            __vfs-policy_parse_subcommand 1 'policy=' 'relay' 'token-file=' 'passcode-file=' 'passcode-fd=' 'replace' 'json' 'dry-run' 'version' 'h/help'
        case 'log'
            __vfs-policy_parse_subcommand 0 'policy=' 'relay' 'json' 'version' 'h/help'
        case 'sync'
            __vfs-policy_parse_subcommand 0 'token-file=' 'passcode-file=' 'passcode-fd=' 'json' 'version' 'h/help'
        case 'grace'
            __vfs-policy_parse_subcommand 1 'token-file=' 'passcode-file=' 'passcode-fd=' 'json' 'version' 'h/help'
        case 'help'
            __vfs-policy_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-policy_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-policy_parse_subcommand -S -a positional_count
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

function __vfs-policy_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-policy_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-policy_tokens -p)
    if test -z "$(__vfs-policy_tokens -t)"
        set -l index (count (__vfs-policy_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-policy' -f
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy" -eq 1' -fa 'list' -d 'List the items (id, app, status, expiry, groups, types, name).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy" -eq 1' -fa 'add' -d 'Approve an app; prints the new item\'s id.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy" -eq 1' -fa 'update' -d 'Change an item, named by its app or its id.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy" -eq 1' -fa 'remove' -d 'Remove an item, named by its app or its id.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy" -eq 1' -fa 'check' -d 'Decide whether APP may receive a file: exit 0 allowed, 1 denied.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy" -eq 1' -fa 'export' -d 'Write the policy (the file\'s format) to stdout or -o FILE.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy" -eq 1' -fa 'import' -d 'Merge a policy file (as export writes it) into the policy, by app.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy" -eq 1' -fa 'log' -d 'Show who changed what, when (the log PATH.log beside the policy).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy" -eq 1' -fa 'sync' -d 'Refresh this device\'s copy of the organisation\'s policy from the relay.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy" -eq 1' -fa 'grace' -d 'Show or set (admins) the organisation\'s offline grace on the relay.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy list" policy' -l 'policy' -d 'The policy file (default: $VFS_POLICY, else $VFS_HOME/policy.json).' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy list" relay' -l 'relay' -d 'Use the organisation\'s list on the relay (reads: this device\'s copy; changes: the relay, admins only).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy list" json' -l 'json' -d 'Print a JSON array of the items, each with its status.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy list" apps' -l 'apps' -d 'Print only the apps of the active items, one a line (for completion).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy list" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy add" policy' -l 'policy' -d 'The policy file (default: $VFS_POLICY, else $VFS_HOME/policy.json).' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy add" relay' -l 'relay' -d 'Use the organisation\'s list on the relay (reads: this device\'s copy; changes: the relay, admins only).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy add" name' -l 'name' -d 'A display name for people.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy add"' -l 'group' -d 'A group whose files the app may receive. Repeatable; none means any group.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy add"' -l 'type' -d 'A file type (extension, e.g. pdf) the app may receive. Repeatable; none means any type.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy add" expires' -l 'expires' -d 'When the approval ends: a date (valid through that day, UTC), an ISO 8601 time, or a duration from now (90d).' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy add" token-file' -l 'token-file' -d 'With the relay, read the device\'s token from PATH instead of the keychain.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy add" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy add" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy add" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" policy' -l 'policy' -d 'The policy file (default: $VFS_POLICY, else $VFS_HOME/policy.json).' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" relay' -l 'relay' -d 'Use the organisation\'s list on the relay (reads: this device\'s copy; changes: the relay, admins only).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" name' -l 'name' -d 'A display name for people.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update"' -l 'group' -d 'A group whose files the app may receive. Repeatable; none means any group.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update"' -l 'type' -d 'A file type (extension, e.g. pdf) the app may receive. Repeatable; none means any type.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" expires' -l 'expires' -d 'When the approval ends: a date (valid through that day, UTC), an ISO 8601 time, or a duration from now (90d).' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" token-file' -l 'token-file' -d 'With the relay, read the device\'s token from PATH instead of the keychain.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" enable' -l 'enable' -d 'Enable the item.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" disable' -l 'disable' -d 'Disable the item (it denies until enabled).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" clear-groups' -l 'clear-groups' -d 'Allow files of any group.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" clear-types' -l 'clear-types' -d 'Allow files of any type.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" no-expiry' -l 'no-expiry' -d 'Remove the expiry.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy update" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy remove" policy' -l 'policy' -d 'The policy file (default: $VFS_POLICY, else $VFS_HOME/policy.json).' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy remove" relay' -l 'relay' -d 'Use the organisation\'s list on the relay (reads: this device\'s copy; changes: the relay, admins only).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy remove" token-file' -l 'token-file' -d 'With the relay, read the device\'s token from PATH instead of the keychain.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy remove" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy remove" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy remove" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy check" policy' -l 'policy' -d 'The policy file (default: $VFS_POLICY, else $VFS_HOME/policy.json).' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy check" relay' -l 'relay' -d 'Use the organisation\'s list on the relay (reads: this device\'s copy; changes: the relay, admins only).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy check" group' -l 'group' -d 'The group the file belongs to.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy check" file' -l 'file' -d 'The file to release; its extension is the type.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy check" type' -l 'type' -d 'The file type (extension, e.g. pdf).' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy check" at' -l 'at' -d 'Decide as at this moment instead of now: what --expires takes (a date, at its start in UTC; an ISO 8601 time; a duration from now, 30d).' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy check" json' -l 'json' -d 'Print the decision as JSON.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy check" -eq 1' -fka '(vfs-policy list --apps </dev/null 2>/dev/null)'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy check" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy export" policy' -l 'policy' -d 'The policy file (default: $VFS_POLICY, else $VFS_HOME/policy.json).' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy export" relay' -l 'relay' -d 'Use the organisation\'s list on the relay (reads: this device\'s copy; changes: the relay, admins only).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy export" o output' -l 'output' -s 'o' -d 'Write to FILE instead of stdout.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy export" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy import" policy' -l 'policy' -d 'The policy file (default: $VFS_POLICY, else $VFS_HOME/policy.json).' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy import" relay' -l 'relay' -d 'Use the organisation\'s list on the relay (reads: this device\'s copy; changes: the relay, admins only).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy import" token-file' -l 'token-file' -d 'With the relay, read the device\'s token from PATH instead of the keychain.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy import" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy import" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy import" replace' -l 'replace' -d 'Make the policy exactly FILE: remove the apps it does not list.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy import" json' -l 'json' -d 'Print the summary (added, updated, removed, unchanged) as JSON.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy import" dry-run' -l 'dry-run' -d 'Say what the import would change; change nothing.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_positional "vfs-policy import" -eq 1' -F
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy import" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy log" policy' -l 'policy' -d 'The policy file (default: $VFS_POLICY, else $VFS_HOME/policy.json).' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy log" relay' -l 'relay' -d 'Use the organisation\'s list on the relay (reads: this device\'s copy; changes: the relay, admins only).'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy log" json' -l 'json' -d 'Print a JSON array of the log entries.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy log" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy log" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy sync" token-file' -l 'token-file' -d 'With the relay, read the device\'s token from PATH instead of the keychain.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy sync" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy sync" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy sync" json' -l 'json' -d 'Print where the copy came from (relay, revision, fetched, grace) and its item count as JSON.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy sync" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy sync" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy grace" token-file' -l 'token-file' -d 'With the relay, read the device\'s token from PATH instead of the keychain.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy grace" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy grace" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy grace" json' -l 'json' -d 'Print {"graceSeconds": N} as JSON.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy grace" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy grace" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-policy' -n '__vfs-policy_should_offer_completions_for_flags_or_options "vfs-policy help" version' -l 'version' -d 'Show the version.'
