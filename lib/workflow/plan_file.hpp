#pragma once
// Plan files (YAML, format tra-plan/1, docs/plan-format.md): an IA plan a user can save, read,
// edit by hand and pass to `tra explain` and `tra run`. A plan file names its workflow (path and
// content hash) and S, and lists the IA nodes in plan order; types, key sets and costs are not
// stored but recomputed from the workflow, so a hand edit can only change what is physical
// (operators, inputs, placements), and every edit is checked as a whole IA program on load.
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "ia/plan.hpp"
#include "tra/program.hpp"
#include "workflow/workflow_loader.hpp"

namespace tra::workflow {

// The format line every plan file starts with; a file naming another version is refused.
inline constexpr const char* kPlanFormat = "tra-plan/1";

// Whether the file at `path` is a plan file rather than a workflow: it has a line
// `format: tra-plan/...`. False when it cannot be read (the workflow loader then says why).
bool is_plan_file(const std::string& path);

// What ranked the plan a file holds: the cost model and the time model's machine profile
// (ia/machine_profile.hpp). Written as `ranked_by:`, read back for the record; a plan file
// without it (hand-written, or older) runs the same.
struct RankedBy {
    std::string cost;          // "time", "exact", "paper"
    std::string machine;       // the profile's name
    std::string machine_hash;  // its content hash
};

// Writes `plan` as a plan file to `out`.
//   workflow_path  the workflow the plan was made from, as the caller opened it (absolute, or
//                  relative to the current directory); its bytes are hashed now.
//   plan_name      free text naming the plan (e.g. the search's "AB=cmm,C=local").
//   plan_path      where the text will be stored; a relative workflow path is written relative
//                  to this file's folder so the pair can be moved together. "" or "-" (stdout)
//                  means the current directory. An absolute workflow path is written as is.
// Costs are recomputed on load, so they appear only as comments. Throws Error when the
// workflow cannot be read.
//   ranked_by      what ranked it, when known.
void write_plan_file(std::ostream& out, const ia::Plan& plan, const std::string& workflow_path,
                     const std::string& plan_name, const std::string& plan_path = "",
                     const std::optional<RankedBy>& ranked_by = std::nullopt);

// write_plan_file into the file `plan_path` (written to PATH.tmp, then renamed into place, so a
// failure never leaves half a plan). Throws Error (Failed) when it cannot be written.
void save_plan_file(const std::string& plan_path, const ia::Plan& plan,
                    const std::string& workflow_path, const std::string& plan_name,
                    const std::optional<RankedBy>& ranked_by = std::nullopt);

// A plan read back together with the Program it refers to. `plan` points at `*program`, which
// lives on the heap, so moving a LoadedPlan keeps the plan valid; copy `plan` out only while
// the LoadedPlan is alive.
struct LoadedPlan {
    std::unique_ptr<const Program> program;
    ia::Plan plan;
    std::string name;           // the file's `name:`
    std::string workflow_path;  // the workflow as opened: relative to the current directory
                                // (resolved against the plan file's folder) or absolute
    std::string workflow_hash;  // "fnv1a64:..." (checked equal to the workflow's bytes)
    std::optional<RankedBy> ranked_by;
};

// Reads a plan file, loads its workflow with `options`, and checks the plan against both:
// format version, workflow hash, node ids in order, origins that exist, inputs that come
// earlier and hold the relations the origin's TRA operator consumes, op kinds that fit the
// origin's operator, placement text, map arity, every placement re-derived by ia::validate
// (e.g. a local join of inputs that are not co-located), and one result per needed TRA node.
// Every error is an Error (BadInput, exit 2) at the plan file's line:column and field, naming
// the node ("nodes[3]: node #3 (local_join producing 'AB'): ..."); errors inside the workflow
// are reported at the workflow's location. The file's `sites:` is the plan's S: checking it
// against the number of ranks of a run is the caller's job (`tra run` refuses a mismatch).
LoadedPlan load_plan_file(const std::string& path, const LoadOptions& options = {});

// The same for a plan file's text in memory (what `tra run`'s rank 0 sends the other ranks):
// `source` names it in errors; a relative workflow path in it is relative to the current
// directory (write it with plan_path "").
LoadedPlan read_plan_text(const std::string& text, const std::string& source,
                          const LoadOptions& options = {});

}  // namespace tra::workflow
