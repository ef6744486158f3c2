#include "common/pixels.h"

// libstb provides the stb implementations (no STB_*_IMPLEMENTATION here).
#include <stb_image.h>
#include <stb_image_write.h>
#include <turbojpeg.h>

#include <memory>

namespace vimgpt {
namespace {

struct TurboHandle {
  tjhandle handle;
  explicit TurboHandle(tjhandle h) : handle(h) {}
  TurboHandle(const TurboHandle&) = delete;
  TurboHandle& operator=(const TurboHandle&) = delete;
  ~TurboHandle() {
    if (handle != nullptr) tjDestroy(handle);
  }
};

void append_to_string(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

bool is_jpeg(std::string_view bytes) {
  return bytes.size() >= 3 && static_cast<unsigned char>(bytes[0]) == 0xFF &&
         static_cast<unsigned char>(bytes[1]) == 0xD8 && static_cast<unsigned char>(bytes[2]) == 0xFF;
}

}  // namespace

Result<Pixels> decode_jpeg(std::string_view bytes) {
  TurboHandle tj(tjInitDecompress());
  if (tj.handle == nullptr) return fail(ErrorKind::Internal, "libturbojpeg: cannot create a decompressor");
  const auto* source = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto size = static_cast<unsigned long>(bytes.size());
  int width = 0;
  int height = 0;
  int subsampling = 0;
  int colorspace = 0;
  if (tjDecompressHeader3(tj.handle, source, size, &width, &height, &subsampling, &colorspace) != 0) {
    return fail(ErrorKind::Parse, std::string("not a readable JPEG: ") + tjGetErrorStr2(tj.handle));
  }
  Pixels pixels;
  pixels.width = width;
  pixels.height = height;
  pixels.channels = 3;
  pixels.data.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3U);
  if (tjDecompress2(tj.handle, source, size, pixels.data.data(), width, 0, height, TJPF_RGB, TJFLAG_FASTDCT) != 0) {
    return fail(ErrorKind::Parse, std::string("JPEG decoding failed: ") + tjGetErrorStr2(tj.handle));
  }
  return pixels;
}

Result<Pixels> decode_pixels(std::string_view bytes) {
  if (is_jpeg(bytes)) return decode_jpeg(bytes);
  int width = 0;
  int height = 0;
  int channels = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> loaded(
      stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), static_cast<int>(bytes.size()), &width,
                            &height, &channels, 3),
      stbi_image_free);
  if (!loaded) return fail(ErrorKind::Parse, std::string("not a readable image: ") + stbi_failure_reason());
  Pixels pixels;
  pixels.width = width;
  pixels.height = height;
  pixels.channels = 3;
  pixels.data.assign(loaded.get(),
                     loaded.get() + static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3U);
  return pixels;
}

Result<std::string> encode_jpeg(const Pixels& pixels, int quality) {
  if (quality < 1 || quality > 100) {
    return fail(ErrorKind::InvalidArgument, "JPEG quality must be 1-100, not " + std::to_string(quality));
  }
  if (pixels.channels != 3 && pixels.channels != 4) {
    return fail(ErrorKind::InvalidArgument, "JPEG encoding takes RGB or RGBA pixels");
  }
  TurboHandle tj(tjInitCompress());
  if (tj.handle == nullptr) return fail(ErrorKind::Internal, "libturbojpeg: cannot create a compressor");
  unsigned char* out = nullptr;
  unsigned long size = 0;
  const int status =
      tjCompress2(tj.handle, pixels.data.data(), pixels.width, 0, pixels.height,
                  pixels.channels == 4 ? TJPF_RGBA : TJPF_RGB, &out, &size, TJSAMP_420, quality, TJFLAG_FASTDCT);
  std::unique_ptr<unsigned char, void (*)(unsigned char*)> owned(out, tjFree);
  if (status != 0) return fail(ErrorKind::Internal, std::string("JPEG encoding failed: ") + tjGetErrorStr2(tj.handle));
  return std::string(reinterpret_cast<const char*>(out), size);
}

Result<std::string> encode_png(const Pixels& pixels) {
  if (pixels.channels != 3 && pixels.channels != 4) {
    return fail(ErrorKind::InvalidArgument, "PNG encoding takes RGB or RGBA pixels");
  }
  std::string out;
  if (stbi_write_png_to_func(append_to_string, &out, pixels.width, pixels.height, pixels.channels, pixels.data.data(),
                             pixels.width * pixels.channels) == 0) {
    return fail(ErrorKind::Internal, "PNG encoding failed");
  }
  return out;
}

}  // namespace vimgpt
