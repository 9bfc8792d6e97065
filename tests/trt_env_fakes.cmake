# Fake TensorRT pieces for the trt_env tests (env, plan, calib, build): shared
# libraries that export what trtlens reads from a real libnvinfer, each in its
# own folder under the real file name (libnvinfer.so.10.3.0 ...). The tests
# copy them into install layouts (tarball, desktop, Jetson) in temp folders.
set(TRT_FAKE_SRC ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/trt_env)
set(TRT_FAKE_OUT ${CMAKE_CURRENT_BINARY_DIR}/trt_env_fakes)

function(trtlens_fake_library target folder output version soversion source)
  add_library(${target} SHARED ${TRT_FAKE_SRC}/${source})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${output} VERSION ${version} SOVERSION ${soversion}
    LIBRARY_OUTPUT_DIRECTORY ${TRT_FAKE_OUT}/${folder}
    C_VISIBILITY_PRESET hidden
    # Tests load these from copies; no build-tree RPATH may rescue a missing dependency.
    SKIP_BUILD_RPATH ON)
  target_compile_definitions(${target} PRIVATE ${ARGN})
endfunction()

trtlens_fake_library(trtlens_fake_nvinfer_10 nvinfer10 nvinfer 10.3.0 10 fake_nvinfer.c
  FAKE_VERSION_SYMBOL=tensorrt_version_10_3_0_26
  FAKE_BUILD_SYMBOL=tensorrt_build_release_10_3_20240731_34167542
  FAKE_INFER_LIB_VERSION=100300 FAKE_MAJOR=10 FAKE_MINOR=3 FAKE_PATCH=0 FAKE_BUILD=26)
trtlens_fake_library(trtlens_fake_nvinfer_8 nvinfer8 nvinfer 8.6.1 8 fake_nvinfer.c
  FAKE_VERSION_SYMBOL=tensorrt_version_8_6_1_6
  FAKE_BUILD_SYMBOL=tensorrt_build_root_20230413_32616410
  FAKE_INFER_LIB_VERSION=8601)
trtlens_fake_library(trtlens_fake_dep fakedep trtlens_fake_dep 1.0.0 1 fake_dep.c)
trtlens_fake_library(trtlens_fake_nvinfer_unloadable nvinfer_unloadable nvinfer 10.3.0 10 fake_nvinfer.c
  FAKE_VERSION_SYMBOL=tensorrt_version_10_3_0_26
  FAKE_BUILD_SYMBOL=tensorrt_build_release_10_3_20240731_34167542
  FAKE_INFER_LIB_VERSION=100300 FAKE_NEEDS_DEP=1)
target_link_libraries(trtlens_fake_nvinfer_unloadable PRIVATE trtlens_fake_dep)
trtlens_fake_library(trtlens_fake_nvinfer_crash nvinfer_crash nvinfer 10.3.0 10 fake_nvinfer.c
  FAKE_VERSION_SYMBOL=tensorrt_version_10_3_0_26
  FAKE_BUILD_SYMBOL=tensorrt_build_release_10_3_20240731_34167542
  FAKE_INFER_LIB_VERSION=100300 FAKE_CRASH=1)
trtlens_fake_library(trtlens_fake_nvonnxparser_10 nvonnxparser10 nvonnxparser 10.3.0 10 fake_nvonnxparser.c)
trtlens_fake_library(trtlens_fake_cudart_12 cudart12 cudart 12.2.140 12 fake_cudart.c)

set(TRT_FAKE_TARGETS trtlens_fake_nvinfer_10 trtlens_fake_nvinfer_8 trtlens_fake_nvinfer_unloadable
    trtlens_fake_nvinfer_crash trtlens_fake_nvonnxparser_10 trtlens_fake_cudart_12)
set(TRT_FAKE_DEFS
  TRT_FAKE_NVINFER_10="$<TARGET_FILE:trtlens_fake_nvinfer_10>"
  TRT_FAKE_NVINFER_8="$<TARGET_FILE:trtlens_fake_nvinfer_8>"
  TRT_FAKE_NVINFER_UNLOADABLE="$<TARGET_FILE:trtlens_fake_nvinfer_unloadable>"
  TRT_FAKE_NVINFER_CRASH="$<TARGET_FILE:trtlens_fake_nvinfer_crash>"
  TRT_FAKE_NVONNXPARSER_10="$<TARGET_FILE:trtlens_fake_nvonnxparser_10>"
  TRT_FAKE_CUDART_12="$<TARGET_FILE:trtlens_fake_cudart_12>"
  TRT_FAKE_FIXTURES="${TRT_FAKE_SRC}")
foreach(t unit_tests cli_tests)
  target_compile_definitions(${t} PRIVATE ${TRT_FAKE_DEFS})
  add_dependencies(${t} ${TRT_FAKE_TARGETS})
endforeach()
