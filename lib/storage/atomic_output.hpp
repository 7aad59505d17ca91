#pragma once
// An output file that appears at its final name only when complete: written under a temporary
// name in the same folder, renamed by commit(), removed if never committed.
#include <string>

namespace tra::storage {

class AtomicOutput {
public:
    // Refuses (Error, BadInput) when `final_path` exists and `replace` is false, or its folder
    // does not exist / is not writable.
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
