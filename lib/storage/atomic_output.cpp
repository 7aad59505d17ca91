#include "storage/atomic_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/error.hpp"

namespace tra::storage {

namespace fs = std::filesystem;

namespace {

std::string in_quotes(const std::string& s) {
    return "'" + s + "'";
}

// pid + counter keeps names apart between processes (MPI ranks, parallel test runs) and between
// outputs of one process; the ".tmp" after the extension keeps them out of globs and git.
std::string temp_name(const std::string& final_path) {
    static std::atomic<unsigned> counter{0};
    return final_path + ".tmp-" + std::to_string(::getpid()) + "-" +
           std::to_string(counter.fetch_add(1));
}

}  // namespace

AtomicOutput::AtomicOutput(std::string final_path, bool replace) : final_(std::move(final_path)) {
    std::error_code ec;
    const fs::path target(final_);
    if (fs::is_directory(target, ec)) throw Error("output " + in_quotes(final_) + " is a folder");
    if (fs::exists(target, ec) && !replace)
        throw Error("output " + in_quotes(final_) + " exists; pass --force to replace it");

    // Users expect `out/` to be made for them.
    const fs::path folder = target.parent_path();
    if (!folder.empty() && !fs::is_directory(folder, ec)) {
        fs::create_directories(folder, ec);
        if (ec)
            throw Error("cannot create folder " + in_quotes(folder.string()) + " for output " +
                        in_quotes(final_) + ": " + ec.message());
    }

    // Probe with the very file we will use: this catches read-only folders and file systems
    // (which permission bits alone miss, e.g. for root) before any work is done, and O_EXCL
    // proves the name is free. The writer creates the file afresh, so the probe goes again.
    temp_ = temp_name(final_);
    const int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        const std::string why = std::strerror(errno);
        temp_.clear();
        throw Error("cannot write output " + in_quotes(final_) + " in folder " +
                    in_quotes(folder.empty() ? "." : folder.string()) + ": " + why);
    }
    ::close(fd);
    fs::remove(temp_, ec);
}

AtomicOutput::~AtomicOutput() {
    if (committed_ || temp_.empty()) return;
    std::error_code ec;  // a destructor must not throw; a leftover temp file is harmless
    fs::remove(temp_, ec);
}

AtomicOutput::AtomicOutput(AtomicOutput&& other) noexcept
    : final_(std::move(other.final_)),
      temp_(std::exchange(other.temp_, std::string())),
      committed_(std::exchange(other.committed_, true)) {}

void AtomicOutput::commit() {
    if (committed_) return;
    std::error_code ec;
    // rename(2) within one folder is atomic: readers see the old file or the complete new one.
    fs::rename(temp_, final_, ec);
    if (ec)
        throw Error(
            "cannot move " + in_quotes(temp_) + " to " + in_quotes(final_) + ": " + ec.message(),
            {}, ErrorKind::Failed);
    committed_ = true;
}

}  // namespace tra::storage
