#include "storage/file_hold.hpp"

#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "storage/hdf5_names.hpp"
#include "storage/hdf5_open.hpp"

namespace tra::storage {

struct FileHold::Handle {
    std::string path;
    detail::Hid file;
};

FileHold::FileHold(const std::string& path) : h_(std::make_unique<Handle>()) {
    detail::silence_hdf5_errors();
    h_->path = path;
    h_->file = detail::open_file(path, H5F_ACC_RDWR);
}

FileHold::~FileHold() = default;

void FileHold::close() {
    detail::silence_hdf5_errors();
    errno = 0;
    if (!h_->file.close())
        throw Error("cannot finish writing " + detail::in_quotes(h_->path) +
                        (errno ? std::string(": ") + std::strerror(errno) : ""),
                    {}, ErrorKind::Failed);
}

}  // namespace tra::storage
