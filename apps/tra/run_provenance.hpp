#pragma once
// The `provenance` object of the run report (docs/runtime.md, "Report"): what a result was made
// from and with, so a number in a paper or a regression can be traced back months later: tra and
// its libraries (the pieces `tra --version` prints), the plan and the machine profile by content
// hash, every input file as it was when the run began, the command line and the rank layout.
#include <cstdint>
#include <string>
#include <vector>

#include "json_writer.hpp"
#include "run_prepare.hpp"
#include "runtime/host_layout.hpp"
#include "version.hpp"

namespace tra::cli {

struct InputFileRecord {
    std::string input;  // the workflow's name for it
    std::string path;   // absolute, as opened
    std::string dataset;
    std::int64_t size_bytes = 0;
    std::int64_t mtime_ns = 0;  // modification time, nanoseconds since the Unix epoch
    std::string content_hash;   // "fnv1a64:..." with --hash-inputs, else empty
};

struct Provenance {
    VersionInfo versions;
    std::string plan_name, plan_file, plan_hash;
    std::string profile_name, profile_source, profile_hash;
    std::vector<InputFileRecord> inputs;
    std::vector<std::string> command_line;
    int ranks = 1, blas_threads = 1;
    std::vector<runtime::Host> hosts;
};

// main() keeps argv here before parsing, for the report's command_line.
void remember_command_line(int argc, const char* const* argv);

// Rank 0, before execution (the input files as the run reads them). `hash_inputs`: also each
// input file's content hash, read in pieces (core/content_hash.hpp); a file used by several
// inputs is read once. Throws Error when an input file cannot be examined.
Provenance collect_provenance(const RunOptions& opt, const Prepared& prep,
                              const runtime::HostLayout& hosts, int blas_threads);

// The object itself, as the value of the current key.
void write_provenance_json(JsonWriter& j, const Provenance& p);

}  // namespace tra::cli
