function __vfs-keychain_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-keychain_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __vfs-keychain_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __vfs-keychain_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __vfs-keychain_parse_tokens -S
    set -l unparsed_tokens (__vfs-keychain_tokens -pc)
    switch $unparsed_tokens[1]
    case 'vfs-keychain'
        __vfs-keychain_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'init'
            __vfs-keychain_parse_subcommand 0 'passcode-file=' 'passcode-fd=' 'questions=' 'answers-file=' 'work-factor=' 'version' 'h/help'
        case 'set'
            __vfs-keychain_parse_subcommand 2 'update' 'label=' 'raw' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'get'
            __vfs-keychain_parse_subcommand 2 'c/clip' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'delete'
            __vfs-keychain_parse_subcommand 2 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'list'
            __vfs-keychain_parse_subcommand 1 'json' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'import'
            __vfs-keychain_parse_subcommand 1 'update' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'generate'
            __vfs-keychain_parse_subcommand 3 'n/no-symbols' 'i/in-place' 'f/force' 'c/clip' 'label=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'edit'
            __vfs-keychain_parse_subcommand 2 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'mv'
            __vfs-keychain_parse_subcommand -r 1 'f/force' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'cp'
            __vfs-keychain_parse_subcommand -r 1 'f/force' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'find'
            __vfs-keychain_parse_subcommand -r 1 'json' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'export'
            __vfs-keychain_parse_subcommand 0 'json' 'f/force' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'passcode'
            __vfs-keychain_parse_subcommand 0 'passcode-file=' 'passcode-fd=' 'new-passcode-file=' 'new-passcode-fd=' 'answers-file=' 'version' 'h/help'
        case 'recover'
            __vfs-keychain_parse_subcommand 0 'answers-file=' 'new-passcode-file=' 'new-passcode-fd=' 'version' 'h/help'
        case 'questions'
            __vfs-keychain_parse_subcommand 0 'passcode-file=' 'passcode-fd=' 'questions=' 'answers-file=' 'remove' 'work-factor=' 'version' 'h/help'
        case 'identity'
            __vfs-keychain_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'new'
                __vfs-keychain_parse_subcommand 1 'pq' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
            case 'import'
                __vfs-keychain_parse_subcommand 2 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
            case 'export'
                __vfs-keychain_parse_subcommand 1 'f/force' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
            case 'recipient'
                __vfs-keychain_parse_subcommand 1 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
            case 'list'
                __vfs-keychain_parse_subcommand 0 'json' 'names' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
            case 'delete'
                __vfs-keychain_parse_subcommand 1 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
            end
        case 'escrow'
            __vfs-keychain_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'split'
                __vfs-keychain_parse_subcommand 1 'shares=' 'threshold=' 'to=+' 'o/output=' 'a/armor' 'version' 'h/help'
            case 'join'
                __vfs-keychain_parse_subcommand -r 1 'i/identity=+' 'j=+' 'o/output=' 'version' 'h/help'
            end
        case 'unlock'
            __vfs-keychain_parse_subcommand 0 'timeout=' 'passcode-file=' 'passcode-fd=' 'version' 'h/help'
        case 'lock'
            __vfs-keychain_parse_subcommand 0 'version' 'h/help'
        case 'status'
            __vfs-keychain_parse_subcommand 0 'json' 'version' 'h/help'
        case 'help'
            __vfs-keychain_parse_subcommand -r 1 'version'
        end
    end
end

function __vfs-keychain_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __vfs-keychain_parse_subcommand -S -a positional_count
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

function __vfs-keychain_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __vfs-keychain_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__vfs-keychain_tokens -p)
    if test -z "$(__vfs-keychain_tokens -t)"
        set -l index (count (__vfs-keychain_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'vfs-keychain' -f
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'init' -d 'Create a new keychain protected by a passcode, and optionally security questions.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'set' -d 'Store a secret for SERVICE and ACCOUNT.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'get' -d 'Print the secret of SERVICE and ACCOUNT, and nothing else.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'delete' -d 'Remove the secret of SERVICE and ACCOUNT (exit 66 if there is none).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'list' -d 'List the entries: service, account, label and dates, never secrets.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'import' -d 'Add many secrets at once from a JSON array (to move a store over).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'generate' -d 'Make a random secret for SERVICE and ACCOUNT, store it, and print it once.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'edit' -d 'Change the secret of SERVICE and ACCOUNT in your editor, through a private file on tmpfs.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'mv' -d 'Rename an entry (exit 66 if OLD is missing, 73 if NEW exists, unless -f).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'cp' -d 'Copy an entry\'s secret and label to a new name (exit 66 if OLD is missing, 73 if NEW exists, unless -f).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'find' -d 'List the entries whose service, account or label contains a TERM, ignoring case (exit 1 if none).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'export' -d 'Write every secret as the JSON array that import reads (the counterpart of import).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'passcode' -d 'Change the passcode; the master key is replaced and every entry sealed again.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'recover' -d 'Answer the recovery questions and set a new passcode.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'questions' -d 'Set, change or remove the recovery questions; the master key is replaced.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'identity' -d 'Keep age identities in the keychain, for vfs-decrypt -K and vfs-encrypt -K.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'escrow' -d 'Split a secret into shares for several officers, any K of whom rebuild it (Shamir, break-glass).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'unlock' -d 'Start the agent: keep the keychain unlocked for this user until lock or the timeout.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'lock' -d 'Stop the agent: the key is wiped from memory. Exit 0 even if it was not running.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'status' -d 'Say whether the keychain is unlocked, and for how long: exit 0 unlocked, 1 locked, 66 no keychain.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain init" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain init" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain init" questions' -l 'questions' -d 'Add recovery questions, one a line, from PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain init" answers-file' -l 'answers-file' -d 'Read the answers to the recovery questions from PATH, one a line, in order.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain init" work-factor' -l 'work-factor' -d 'scrypt work factor log2(N) for the key slots (1-22; low values only for tests).' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain init" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain init" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain set" update' -l 'update' -d 'Replace the secret if the entry exists.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain set" label' -l 'label' -d 'A free-text label, shown by list.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain set" raw' -l 'raw' -d 'Store stdin byte for byte (keep a trailing newline).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain set" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain set" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain set" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain set" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain get" c clip' -s 'c' -l 'clip' -d 'Copy it to the clipboard instead of printing it (cleared after VFS_CLIP_TIME, 45s).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain get" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain get" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain get" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain get" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain delete" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain delete" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain delete" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain delete" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain list" json' -l 'json' -d 'Write JSON.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain list" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain list" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain list" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain import" -eq 1' -F
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain import" update' -l 'update' -d 'Replace the secrets of entries that exist.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain import" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain import" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain import" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain generate" n no-symbols' -s 'n' -l 'no-symbols' -d 'Letters and digits only.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain generate" i in-place' -s 'i' -l 'in-place' -d 'Replace the secret of an existing entry only (exit 66 if there is none).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain generate" f force' -s 'f' -l 'force' -d 'Replace the entry if it exists (else exit 73).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain generate" c clip' -s 'c' -l 'clip' -d 'Copy it to the clipboard instead of printing it (cleared after VFS_CLIP_TIME, 45s).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain generate" label' -l 'label' -d 'A free-text label, shown by list.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain generate" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain generate" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain generate" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain generate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain edit" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain edit" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain edit" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain edit" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain mv" f force' -s 'f' -l 'force' -d 'Replace NEW if it exists.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain mv" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain mv" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain mv" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain mv" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain cp" f force' -s 'f' -l 'force' -d 'Replace NEW if it exists.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain cp" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain cp" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain cp" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain cp" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain find" json' -l 'json' -d 'Write JSON, as list --json does.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain find" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain find" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain find" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain find" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain export" json' -l 'json' -d 'JSON (the only format; accepted for scripts that say so).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain export" f force' -s 'f' -l 'force' -d 'Write the secrets to a terminal too.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain export" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain export" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain export" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain passcode" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain passcode" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain passcode" new-passcode-file' -l 'new-passcode-file' -d 'Read the new passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain passcode" new-passcode-fd' -l 'new-passcode-fd' -d 'Read the new passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain passcode" answers-file' -l 'answers-file' -d 'Read the answers to the recovery questions from PATH, one a line, in order.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain passcode" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain passcode" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain recover" answers-file' -l 'answers-file' -d 'Read the answers to the recovery questions from PATH, one a line, in order.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain recover" new-passcode-file' -l 'new-passcode-file' -d 'Read the new passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain recover" new-passcode-fd' -l 'new-passcode-fd' -d 'Read the new passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain recover" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain recover" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain questions" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain questions" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain questions" questions' -l 'questions' -d 'The new recovery questions, one a line, from PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain questions" answers-file' -l 'answers-file' -d 'Read the answers to the recovery questions from PATH, one a line, in order.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain questions" remove' -l 'remove' -d 'Remove the recovery questions: only the passcode opens the keychain.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain questions" work-factor' -l 'work-factor' -d 'scrypt work factor log2(N) for the recovery slot (default: the passcode slot\'s).' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain questions" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain questions" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain identity" -eq 1' -fa 'new' -d 'Make a new identity called NAME and print its recipient.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain identity" -eq 1' -fa 'import' -d 'Store the identity in FILE (an age identity file, \'-\' for stdin) as NAME; print its recipient.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain identity" -eq 1' -fa 'export' -d 'Print the identity NAME as an age identity file, for age -d -i and vfs-decrypt -i.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain identity" -eq 1' -fa 'recipient' -d 'Print the recipient (age1…) of the identity NAME; no passcode needed.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain identity" -eq 1' -fa 'list' -d 'List the identities: name and recipient, one a line, tab-separated (--json for JSON).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain identity" -eq 1' -fa 'delete' -d 'Remove the identity NAME (exit 66 if there is none).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity new" pq' -l 'pq' -d 'Make a post-quantum (ML-KEM-768 + X25519) identity, recipient age1pq1….'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity new" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity new" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity new" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity new" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity import" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity import" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity import" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity import" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain identity export" -eq 1' -fka '(vfs-keychain identity list --names </dev/null 2>/dev/null)'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity export" f force' -s 'f' -l 'force' -d 'Write the secret key to a terminal too.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity export" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity export" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity export" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity export" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain identity recipient" -eq 1' -fka '(vfs-keychain identity list --names </dev/null 2>/dev/null)'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity recipient" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity recipient" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity recipient" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity recipient" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity list" json' -l 'json' -d 'Write JSON.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity list" names' -l 'names' -d 'Print only the names, one a line, never asking for the passcode: through the agent, or a passcode from --passcode-file, --passcode-fd or VFS_PASSCODE; else fail at once (for completion).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity list" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity list" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity list" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain identity delete" -eq 1' -fka '(vfs-keychain identity list --names </dev/null 2>/dev/null)'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity delete" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity delete" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity delete" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain identity delete" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain escrow" -eq 1' -fa 'split' -d 'Split FILE (or stdin) into N shares, each age-encrypted to one --to, any K of which rebuild it.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain escrow" -eq 1' -fa 'join' -d 'Rebuild the secret from K shares (age files opened with -i, or shares already decrypted).'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow split" shares' -l 'shares' -d 'How many shares to write (2-255).' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow split" threshold' -l 'threshold' -d 'How many shares rebuild the secret (2-N).' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow split"' -l 'to' -d 'The recipient of the next share (age1…, age1pq1…, an ssh-ed25519/ssh-rsa public key): one --to per share, in order.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow split" o output' -s 'o' -l 'output' -d 'Write the shares as PREFIX-1.age … PREFIX-N.age.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow split" a armor' -l 'armor' -s 'a' -d 'Write PEM-armored (ASCII) output.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain escrow split" -eq 1' -F
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow split" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow split" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow join"' -s 'i' -l 'identity' -d 'Use the identities in PATH: an age identity file (passphrase-protected too, plugin stubs AGE-PLUGIN-NAME-1… too), or an OpenSSH ssh-ed25519/ssh-rsa private key (\'-\' for stdin). Repeatable.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow join"' -s 'j' -d 'Use plugin NAME\'s identity without data (age-plugin-NAME on PATH). Repeatable.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow join" o output' -s 'o' -l 'output' -d 'Write the secret to PATH (mode 0600) instead of stdout.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_positional "vfs-keychain escrow join" -ge 1' -F
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow join" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain escrow join" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain unlock" timeout' -l 'timeout' -d 'How long to stay unlocked: 90s, 30m, 12h, 7d, with a unit.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain unlock" passcode-file' -l 'passcode-file' -d 'Read the keychain passcode from the first line of PATH.' -rF
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain unlock" passcode-fd' -l 'passcode-fd' -d 'Read the keychain passcode from file descriptor N.' -rfka ''
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain unlock" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain unlock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain lock" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain lock" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain status" json' -l 'json' -d 'Write JSON: {keychain, unlocked, secondsLeft}.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain status" version' -l 'version' -d 'Show the version.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'vfs-keychain' -n '__vfs-keychain_should_offer_completions_for_flags_or_options "vfs-keychain help" version' -l 'version' -d 'Show the version.'
