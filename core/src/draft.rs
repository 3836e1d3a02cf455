//! The register draft (filled in below).
