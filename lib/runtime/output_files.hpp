#pragma once
// A program's output files, claimed before any work starts (so an existing file without --force
// fails fast) and written under temporary names; commit() renames them all into place. If the
// run fails before commit, nothing appears at any final name.
#include <map>
#include <memory>
#include <string>

#include "core/relation.hpp"
#include "storage/atomic_output.hpp"
#include "tra/program.hpp"

namespace tra::runtime {

class OutputFiles {
public:
    OutputFiles(const Program& program, bool replace);

    // Writes one output tile by tile in its dataset (tensor or relation layout).
    void write(const Output& output, const TensorRelation& relation);
    void commit();

private:
    std::map<std::string, std::unique_ptr<storage::AtomicOutput>> files_;
};

}  // namespace tra::runtime
