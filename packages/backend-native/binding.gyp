{
  "targets": [
    {
      "target_name": "telepath_native",
      "sources": [
        "native/addon.cc",
        "native/addon-fused.cc",
        "native/pool.cc",
        "native/gemm.cc",
        "native/elementwise.cc",
        "native/reduce.cc",
        "native/layout.cc",
        "native/fused.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17", "-std=c++17"],
      "cflags_cc": ["-std=c++20", "-O3", "-fexceptions", "-fno-math-errno", "-fno-trapping-math", "-fvisibility=hidden", "-Wall", "-Wno-unused-function"],
      "libraries": ["-lopenblas", "-lpthread"],
      "conditions": [
        ["OS=='mac'", {
          "xcode_settings": {
            "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
            "CLANG_CXX_LANGUAGE_STANDARD": "c++20",
            "OTHER_CPLUSPLUSFLAGS": ["-O3", "-fno-math-errno"]
          }
        }]
      ]
    }
  ]
}
