//! Integration tests: the real server over HTTP, one database per test (SQLite file and
//! PostgreSQL on 127.0.0.1:5432).

#![recursion_limit = "256"]

mod access;
mod appeals;
mod bad_input;
mod chat;
mod chat_usecases;
mod colleagues;
mod connections;
mod email_code;
mod export;
mod files;
mod flex_pushes;
mod helpers;
mod identity;
mod leaving;
mod likes;
mod matchmaking;
mod members;
mod migrations;
mod misc;
mod operations;
mod outage;
mod pausing;
mod photos;
mod process;
mod production;
mod profile;
mod push;
mod quiet_matches;
mod removal_notices;
mod restore;
mod review;
mod reviewers;
mod revisions;
mod s3;
mod safety;
mod scenario;
mod session_cache;
mod session_ends;
mod sessions;
mod several;
mod smtp;
mod templates;
mod upgrade;
mod uploads;
mod we_met;
mod webhook;
