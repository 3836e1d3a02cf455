//! kizuna-wasm-rules: kizuna-core's rules that the web applies in code which does not load the
//! core (`web_rules::WebRules`), for the web build to ask in Node (`virtual:core-rules`,
//! web/vite.config.ts). Never shipped to a browser: the register form's wasm has a size budget,
//! this package has none, and the rules still have one definition, in the core.

use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The rules, as plain JSON-shaped data.
#[wasm_bindgen(js_name = webRules, unchecked_return_type = "WebRules")]
pub fn web_rules() -> Result<JsValue, JsError> {
    kizuna_core::web_rules::web_rules()
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&e.to_string()))
}
