//! Integration tests: the real server over HTTP, one database per test (SQLite file and
//! PostgreSQL on 127.0.0.1:5432).

#![recursion_limit = "256"]

mod access;
mod bad_input;
mod chat;
mod colleagues;
mod connections;
mod email_code;
mod export;
mod files;
mod helpers;
mod identity;
mod leaving;
mod likes;
mod matchmaking;
mod misc;
mod outage;
mod pausing;
mod process;
mod production;
mod profile;
mod push;
mod review;
mod reviewers;
mod revisions;
mod s3;
mod scenario;
mod sessions;
mod several;
mod smtp;
mod uploads;
mod webhook;
