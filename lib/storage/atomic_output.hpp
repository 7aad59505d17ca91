#pragma once
// An output file that appears at its final name only when complete: written under a temporary
// name in the same folder, renamed by commit(), removed if never committed.
#include <string>
#include <vector>

namespace tra::storage {

class AtomicOutput {
  public:
    // Refuses (Error, BadInput) when `final_path` exists and `replace` is false, is a folder, or
    // its folder cannot be created (missing folders are made, like mkdir -p) or written. The temp
    // name is "<final>.tmp-<host>-<pid>-<n>" in the same folder; nothing exists there until
    // written. Temporaries of the same output left on this host by a dead process (a killed run)
    // are removed first, each with a note on stderr.
    AtomicOutput(std::string final_path, bool replace);
    ~AtomicOutput();
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;
    AtomicOutput(AtomicOutput&&) noexcept;

    const std::string& temp_path() const { return temp_; }
    const std::string& final_path() const { return final_; }
    // With --force: starts the temp file as an HDF5 copy of every object of the existing output
    // file except the datasets in `replaced` (absolute names), so they survive the rename.
    // Nothing is done when there is no existing file or it is not HDF5 (it is then replaced).
    void keep_existing_objects(const std::vector<std::string>& replaced);
    void commit();

  private:
    std::string final_;
    std::string temp_;
    bool committed_ = false;
};

}  // namespace tra::storage
