import ArgumentParser

/// The completion kinds that complete names from their sources, shared by the tools'
/// options (the generated bash, zsh and fish scripts run these commands). Each prints
/// one name a line and, when its source is missing or locked, prints nothing and fails
/// quietly: a completion never prompts or waits.
public extension CompletionKind {
    /// The group names: the files in `$VFS_HOME/groups` (VFS_HOME, else
    /// $XDG_DATA_HOME/vfs when absolute, else ~/.local/share/vfs, as VFSPaths.home).
    /// Run by `sh` so that fish runs it alike.
    static var vfsGroups: CompletionKind {
        .shellCommand(#"sh -c 'd=${VFS_HOME:-}; case ${XDG_DATA_HOME:-} in /*) d=${d:-$XDG_DATA_HOME/vfs};; esac; ls -- "${d:-$HOME/.local/share/vfs}/groups"' 2>/dev/null"#)
    }

    /// The keychain's identity names, through its unlock agent (or a passcode in
    /// VFS_PASSCODE); nothing when the keychain is locked (`--names` never prompts).
    static var vfsKeychainIdentities: CompletionKind {
        .shellCommand("vfs-keychain identity list --names </dev/null 2>/dev/null")
    }

    /// The users of this device's organisation, from the relay (vfs-device users): for
    /// vfs-push --to. Nothing when the keychain is locked or the relay does not answer soon.
    static var vfsOrgUsers: CompletionKind {
        .shellCommand("vfs-device users --names </dev/null 2>/dev/null")
    }

    /// The apps the policy approves (its active items).
    static var vfsPolicyApps: CompletionKind {
        .shellCommand("vfs-policy list --apps </dev/null 2>/dev/null")
    }
}
