//! The texts of the mails the server sends, in zh-TW, en and ja.

use crate::locale::Locale;

/// Subject and body of the work e-mail code mail.
pub fn email_code(locale: Locale, code: &str, valid_minutes: i64) -> (String, String) {
    match locale {
        Locale::ZhTw => (
            format!("Kizuna 驗證碼：{code}"),
            format!(
                "您的 Kizuna 工作信箱驗證碼是：\n\n    {code}\n\n請在 {valid_minutes} 分鐘內於 Kizuna \
                 輸入此驗證碼。如果您沒有申請驗證碼，請忽略這封信。"
            ),
        ),
        Locale::En => (
            format!("Your Kizuna code: {code}"),
            format!(
                "Your Kizuna work e-mail code is:\n\n    {code}\n\nEnter it in Kizuna within \
                 {valid_minutes} minutes. If you did not ask for a code, ignore this mail."
            ),
        ),
        Locale::Ja => (
            format!("Kizuna 確認コード：{code}"),
            format!(
                "Kizuna の勤務先メール確認コードは次のとおりです：\n\n    {code}\n\n{valid_minutes} \
                 分以内に Kizuna で入力してください。心当たりがない場合は、このメールを破棄してください。"
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_mail_carries_the_code_and_its_lifetime_in_every_locale() {
        let mut bodies = Vec::new();
        for locale in Locale::ALL {
            let (subject, body) = email_code(locale, "042917", 10);
            assert!(
                subject.contains("042917") && body.contains("042917"),
                "{locale}"
            );
            assert!(body.contains("10"), "{locale}");
            bodies.push(body);
        }
        bodies.dedup();
        assert_eq!(bodies.len(), 3);
    }
}
