#pragma once
// An output file that appears at its final name only when complete: written under a temporary
// name in the same folder, renamed by commit(), removed if never committed.
#include <string>

namespace tra::storage {

class AtomicOutput {
public:
    // Refuses (Error, BadInput) when `final_path` exists and `replace` is false, is a folder, or
    // its folder cannot be created (missing folders are made, like mkdir -p) or written. The temp
    // name is "<final>.tmp-<pid>-<n>" in the same folder; nothing exists there until written.
    AtomicOutput(std::string final_path, bool replace);
    ~AtomicOutput();
    AtomicOutput(const AtomicOutput&) = delete;
    AtomicOutput& operator=(const AtomicOutput&) = delete;
    AtomicOutput(AtomicOutput&&) noexcept;

    const std::string& temp_path() const { return temp_; }
    const std::string& final_path() const { return final_; }
    void commit();

private:
    std::string final_;
    std::string temp_;
    bool committed_ = false;
};

}  // namespace tra::storage
