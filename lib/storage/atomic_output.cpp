#include "storage/atomic_output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <utility>

#include "core/error.hpp"
#include "storage/hdf5_names.hpp"
#include "storage/kept_objects.hpp"

namespace tra::storage {

using detail::in_quotes;

namespace fs = std::filesystem;

namespace {

std::string host_name() {
    char name[HOST_NAME_MAX + 1] = {};
    if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown";
    return name;
}

// "<final>.tmp-<host>-": host + pid tell which process on which host owns a temporary, so a
// later run can tell a dead run's leftovers from a live run's files.
std::string temp_prefix(const std::string& final_path) {
    return final_path + ".tmp-" + host_name() + "-";
}

// pid + counter keeps names apart between processes (MPI ranks, parallel test runs) and between
// outputs of one process; the ".tmp" after the extension keeps them out of globs and git.
std::string temp_name(const std::string& final_path) {
    static std::atomic<unsigned> counter{0};
    return temp_prefix(final_path) + std::to_string(::getpid()) + "-" +
           std::to_string(counter.fetch_add(1));
}

// The pid of "<pid>-<n>", or -1 when `rest` is not exactly that (then the file is not ours).
// A pid has at most 9 digits here, so stol cannot overflow.
long pid_of(const std::string& rest) {
    const std::size_t dash = rest.find('-');
    if (dash == 0 || dash == std::string::npos || dash + 1 == rest.size() || dash > 9) return -1;
    for (std::size_t i = 0; i < rest.size(); ++i)
        if (i != dash && (rest[i] < '0' || rest[i] > '9')) return -1;
    return std::stol(rest.substr(0, dash));
}

// Removes "<final>.tmp-<this host>-<pid>-<n>" files whose process is gone. Only this host's
// (another host's pids mean nothing here) and only a pid that provably no longer exists: a
// live process, or one we may not signal (EPERM), keeps its file.
void remove_dead_temporaries(const std::string& final_path) {
    const fs::path target(final_path);
    const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    const std::string prefix = fs::path(temp_prefix(final_path)).filename().string();
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        const long pid = pid_of(name.substr(prefix.size()));
        if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
        std::error_code rm;
        if (fs::remove(it->path(), rm))
            std::cerr << "tra: note: removed " << in_quotes((target.parent_path() / name).string())
                      << ", left by process " << pid << " on this host, which has ended\n";
    }
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

    remove_dead_temporaries(final_);

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

void AtomicOutput::keep_existing_objects(const std::vector<std::string>& replaced) {
    std::error_code ec;
    if (!fs::is_regular_file(final_, ec)) return;
    copy_kept_objects(final_, temp_, replaced);
}

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
