#pragma once
// Machine profile files (YAML, format tra-machine/1, docs/machine-profile.md): the rates
// `tra calibrate` measured, read back by the time model's users. A profile is hand-editable
// input, so every field is checked on load and every error names file:line:col and the field.
#include <string>

#include "ia/machine_profile.hpp"

namespace tra::workflow {

// The format line every profile starts with; a file naming another version is refused.
inline constexpr const char* kMachineProfileFormat = "tra-machine/1";

// Reads and checks a profile: known fields only, every one present, rates positive and finite,
// gemm sizes ascending and distinct with at least one per dtype, counts at least 1. A link
// written `unmeasured` gets the built-in default's rates with measured = false. source is
// `path`, content_hash the hash of the file's bytes. Throws Error (BadInput, exit 2).
ia::MachineProfile load_machine_profile(const std::string& path);

// The same for a profile's text in memory; `source` names it in errors and becomes the
// profile's source. content_hash is the hash of `text`.
ia::MachineProfile read_machine_profile_text(const std::string& text, const std::string& source);

// The canonical text of a profile: a comment block saying what the file is, then every field.
// Rates are printed with 6 significant digits, so reading the text back gives the printed values
// and writing those again gives the same text. Links with measured = false print `unmeasured`.
// source and content_hash are not part of the text (they describe where a text came from).
std::string machine_profile_yaml(const ia::MachineProfile& profile);

// ia::default_machine_profile() with content_hash = content_hash(machine_profile_yaml(it)), so
// plans made without a profile name the rates they were ranked with.
ia::MachineProfile builtin_machine_profile();

}  // namespace tra::workflow
