//! kizuna-core
