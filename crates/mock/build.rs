//! Compiles the A2A 0.3 `a2a.proto` (vendored in `proto/`) into prost types,
//! a tonic server and ProtoJSON serde, with protox, a protobuf compiler in
//! Rust: building the crate needs no `protoc`. `proto/` is the client's
//! (a link): the client's build script compiles the same file for its client.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let files = protox::compile(["a2a_v0_3.proto"], ["proto"])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    tonic_prost_build::configure()
        .build_client(false)
        .build_server(true)
        .out_dir(&out)
        .compile_well_known_types(true)
        .extern_path(".google.protobuf", "::pbjson_types")
        .compile_fds(files.clone())?;
    let descriptors = prost::Message::encode_to_vec(&files);
    let mut serde = pbjson_build::Builder::new();
    serde
        .out_dir(&out)
        .register_descriptors(&descriptors)?
        // Unknown fields are ignored, as the spec asks of both sides.
        .ignore_unknown_fields()
        .build(&[".a2a.v1"])?;
    Ok(())
}
