package archive

// RenameRefs exposes renameRefs to the fuzz target.
var RenameRefs = renameRefs
