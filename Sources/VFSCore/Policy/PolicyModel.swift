// The item types live in VFSPolicyModel (Foundation only) so the relay server and its
// wire protocol share them without linking VFSCore; re-exported so VFSCore's users
// see them as before.
@_exported import VFSPolicyModel
