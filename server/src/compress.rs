//! Compression of /api's JSON answers: poem's `Compress` does the encoding; this layer only decides
//! when. Answers under `MIN_COMPRESSED_BYTES` go as they are (the framing would eat the gain), and
//! request bodies are never decompressed here (poem's `Compression` middleware would, which turns
//! the body caps into caps on compressed bytes).

use poem::{
    Body, Endpoint, IntoResponse, Middleware, Request, Response, Result,
    http::{HeaderValue, header},
    web::{Compress, CompressionAlgo},
};

use crate::static_site::{Coding, accepted_codings};

/// JSON answers from this size on are compressed for a client that accepts it.
pub const MIN_COMPRESSED_BYTES: usize = 1024;

pub struct CompressJson;

impl<E: Endpoint> Middleware<E> for CompressJson {
    type Output = CompressJsonEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        CompressJsonEndpoint { inner: ep }
    }
}

pub struct CompressJsonEndpoint<E> {
    inner: E,
}

fn is_json(resp: &Response) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            let ct = ct.split(';').next().unwrap_or("").trim();
            ct == "application/json" || ct.ends_with("+json")
        })
}

impl<E: Endpoint> Endpoint for CompressJsonEndpoint<E> {
    type Output = Response;

    async fn call(&self, req: Request) -> Result<Response> {
        let coding = accepted_codings(req.headers()).into_iter().next();
        let mut resp = self.inner.call(req).await?.into_response();
        if !is_json(&resp) || resp.headers().contains_key(header::CONTENT_ENCODING) {
            return Ok(resp);
        }
        resp.headers_mut()
            .append(header::VARY, HeaderValue::from_static("accept-encoding"));
        let Some(coding) = coding else {
            return Ok(resp);
        };
        // JSON answers are built in memory already; reading the body back costs no I/O.
        let bytes = resp.take_body().into_bytes().await?;
        let small = bytes.len() < MIN_COMPRESSED_BYTES;
        resp.set_body(Body::from(bytes));
        if small {
            return Ok(resp);
        }
        let algo = match coding {
            Coding::Brotli => CompressionAlgo::BR,
            Coding::Gzip => CompressionAlgo::GZIP,
        };
        Ok(Compress::new(resp, algo).into_response())
    }
}
