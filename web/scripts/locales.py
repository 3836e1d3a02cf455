# Source of the three locale files (src/lib/i18n/locales/*.json): key -> (en, zh-TW, ja).
# Run: python3 web/scripts/locales.py  (rewrites the JSON files; the Vitest i18n test checks coverage).
import json, os
M = {}
def add(key, en, zh, ja): M[key] = (en, zh, ja)

# common
add('common.loading', 'Loading…', '載入中…', '読み込み中…')
add('common.back', 'Back', '上一步', '戻る')
add('common.next', 'Next', '下一步', '次へ')
add('common.choose', 'Please choose', '請選擇', '選択してください')
add('common.close', 'Close', '關閉', '閉じる')
add('common.edit', 'Edit', '編輯', '編集')
add('common.no', 'No', '否', 'いいえ')
add('common.yes', 'Yes', '是', 'はい')
add('common.processing', 'Processing…', '處理中…', '処理中…')
add('common.retry', 'Try again', '重試', '再試行')
add('common.saving', 'Saving…', '儲存中…', '保存中…')
add('common.notifications', 'Notifications', '通知', '通知')
add('common.skipToContent', 'Skip to content', '跳至主要內容', '本文へスキップ')
add('app.newVersion', 'A new version of Kizuna is available.', 'Kizuna 有新版本。', 'Kizuna の新しいバージョンがあります。')
add('app.reload', 'Reload', '重新載入', '再読み込み')
# errors
add('error.notFoundTitle', 'Page Not Found', '找不到頁面', 'ページが見つかりません')
add('error.internalTitle', 'Internal Server Error', '伺服器內部錯誤', 'サーバー内部エラー')
add('error.pageNotFoundPath', 'Page not found: {path}', '找不到頁面：{path}', 'ページが見つかりません：{path}')
add('error.backHome', 'Back to the start', '回到首頁', 'トップへ戻る')
add('error.network', 'Cannot reach the server. Check your connection and try again.', '無法連線到伺服器，請確認網路後再試一次。', 'サーバーに接続できません。通信環境を確認して再試行してください。')
add('error.startup', 'Kizuna could not start. Please try again in a moment.', 'Kizuna 無法啟動，請稍後再試。', 'Kizuna を起動できませんでした。しばらくしてから再試行してください。')
add('error.unexpected', 'Something went wrong. Please try again.', '發生錯誤，請再試一次。', '問題が発生しました。もう一度お試しください。')
add('error.E503', 'Kizuna is temporarily unavailable. Please try again in a few seconds.', 'Kizuna 暫時無法使用，請幾秒後再試一次。', 'Kizuna は一時的に利用できません。数秒後にもう一度お試しください。')
# friend
add('friend.title', 'Add the Kizuna official account', '加入 Kizuna 官方帳號', 'Kizuna 公式アカウントを追加')
add('friend.lead', 'Kizuna lives inside LINE. To use it, add our official account as a friend.', 'Kizuna 在 LINE 中運作，請先將官方帳號加為好友。', 'Kizuna は LINE の中で動きます。ご利用には公式アカウントの友だち追加が必要です。')
add('friend.reasonReview', 'We tell you when your profile has been reviewed.', '審核結果會透過官方帳號通知你。', 'プロフィール審査の結果をお知らせします。')
add('friend.reasonIntroductions', 'Introductions to compatible people arrive as messages.', '合適對象的介紹會以訊息送達。', '相性の良いお相手の紹介がメッセージで届きます。')
add('friend.reasonPrivacy', 'We never post for you or share your chats.', '我們不會代你發文，也不會分享你的聊天內容。', 'あなたの代わりに投稿したり、トークを共有したりすることはありません。')
add('friend.add', 'Add as a friend', '加入好友', '友だち追加')
add('friend.done', 'I have added it — continue', '我已加入好友，繼續', '追加しました — 続ける')
add('friend.checking', 'Checking…', '確認中…', '確認中…')
add('friend.stillNotFriend', 'We cannot see the friendship yet. Add the account, then try again.', '尚未確認到好友關係，請加入後再試一次。', 'まだ友だち追加が確認できません。追加してからもう一度お試しください。')
# profile
add('profile.title', 'My profile', '我的個人檔案', 'マイプロフィール')
add('profile.you', 'You', '你', 'あなた')
add('profile.changeAvatar', 'Change photo', '更換頭像', '写真を変更')
add('profile.avatarChanged', 'Profile photo updated', '頭像已更新', 'プロフィール写真を更新しました')
add('profile.reviewStatus', 'Review status', '審核狀態', '審査状況')
add('profile.summary', 'Your profile', '你的資料', 'あなたのプロフィール')
add('profile.photoAlt', 'Photo {n}', '照片 {n}', '写真 {n}')
add('review.PENDING', 'In review', '審核中', '審査中')
add('review.APPROVED', 'Approved', '已通過', '承認済み')
add('review.REJECTED', 'Needs changes', '未通過', '要修正')
add('review.SUSPENDED', 'Suspended', '已停權', '利用停止中')
add('review.PENDING.help', 'Thank you! A person on our team checks every profile, usually within two working days.', '感謝你！我們的審核人員會親自檢查每份資料，通常在兩個工作天內完成。', 'ありがとうございます。担当者がすべてのプロフィールを確認します。通常2営業日以内です。')
add('review.APPROVED.help', 'Your profile is verified. We will message you when we find a match.', '你的資料已通過驗證，找到合適對象時會通知你。', 'プロフィールは確認済みです。お相手が見つかり次第お知らせします。')
add('review.REJECTED.help', 'Your profile could not be approved yet. Please see the reason below.', '你的資料暫時無法通過，原因如下。', 'プロフィールはまだ承認できません。理由は以下のとおりです。')
add('review.SUSPENDED.help', 'Your account is suspended. Contact us through the official account.', '你的帳號已被停權，請透過官方帳號與我們聯繫。', 'アカウントは停止されています。公式アカウントからお問い合わせください。')
add('review.reason', 'Reason:', '原因：', '理由：')
# dev
for k,(en,zh,ja) in {
 'title':('Developer tools','開發者工具','開発者ツール'),
 'mockUser':('Mock LINE user','模擬 LINE 使用者','モック LINE ユーザー'),
 'notMocked':('The mock LINE platform is off on this server.','此伺服器未啟用模擬 LINE 平台。','このサーバーではモック LINE が無効です。'),
 'userId':('User id','使用者 ID','ユーザー ID'),
 'displayName':('Display name','顯示名稱','表示名'),
 'friend':('Friend of the official account','官方帳號好友','公式アカウントの友だち'),
 'unfriend':('Remove friendship','解除好友','友だち解除'),
 'befriend':('Become a friend','加為好友','友だちになる'),
 'newUser':('Start as a new user','以新使用者開始','新しいユーザーで始める'),
 'switchUser':('Switch to user id','切換使用者 ID','ユーザー ID を切り替え'),
 'switch':('Switch','切換','切り替え'),
 'invalidUserId':('A LINE user id is U followed by 32 hex digits.','LINE 使用者 ID 為 U 加上 32 位十六進位數字。','LINE ユーザー ID は U と16進数32桁です。'),
 'debug':('Debug mode','除錯模式','デバッグモード'),
 'debugHelp':('Allow opening the app outside LINE','允許在 LINE 以外開啟','LINE 外での起動を許可'),
 'pushes':('Messages pushed to LINE','推送至 LINE 的訊息','LINE に送信されたメッセージ'),
 'loadPushes':('Load messages','載入訊息','メッセージを読み込む'),
 'noPushes':('No messages yet.','尚無訊息。','メッセージはまだありません。'),
 'draft':('Stored register draft','已儲存的註冊草稿','保存された登録下書き'),
 'draftPage':('Current step index: {page}','目前步驟索引：{page}','現在のステップ番号：{page}'),
 'noDraft':('No draft stored.','沒有草稿。','下書きはありません。'),
 'clearDraft':('Clear the draft','清除草稿','下書きを削除'),
 'draftCleared':('Draft cleared','草稿已清除','下書きを削除しました'),
}.items(): add('dev.'+k, en, zh, ja)
# privacy
add('privacy.title', 'Privacy policy', '隱私權政策', 'プライバシーポリシー')
add('privacy.p1', 'We use your profile only to review it and to introduce you to compatible members. Your name, e-mail, address and exact location are never shown to other members.', '你的資料僅用於審核與介紹合適的會員。姓名、電子郵件、地址與精確位置絕不會顯示給其他會員。', 'プロフィールは審査と相性の良い会員の紹介にのみ使います。氏名・メール・住所・正確な位置情報は他の会員に表示されません。')
add('privacy.p2', 'Photos are re-encoded on our servers, which removes their metadata such as GPS positions. Verification documents are seen by our review team only.', '照片會在伺服器重新編碼，移除 GPS 等中繼資料。驗證文件只有審核團隊可以看到。', '写真はサーバーで再エンコードされ、GPS などのメタデータは削除されます。認証書類は審査チームのみが閲覧します。')
add('privacy.p3', 'You can ask us to delete your data at any time through the official account.', '你可以隨時透過官方帳號要求刪除資料。', '公式アカウントからいつでもデータ削除を依頼できます。')
# register chrome
R = {
 'title':('Create your profile','建立個人檔案','プロフィール作成'),
 'steps':('Registration steps','註冊步驟','登録ステップ'),
 'stepOf':('Step {n} of {total}','第 {n} 步，共 {total} 步','ステップ {n} / {total}'),
 'progress':('Progress','進度','進捗'),
 'needsAttention':('needs attention','需要處理','要確認'),
 'coreFailed':('The form could not be loaded. Check your connection and try again.','無法載入表單，請確認網路後再試。','フォームを読み込めませんでした。通信環境を確認して再試行してください。'),
 'employersTitle':('Verified employers ({n})','認證企業（{n} 家）','認証対象の企業（{n}社）'),
 'employersHint':('Kizuna is for people working at these companies. Your employer stays private.','Kizuna 服務以下企業的員工，你的任職公司不會公開。','Kizuna は以下の企業にお勤めの方のためのサービスです。勤務先は公開されません。'),
 'employersSearch':('Search employers','搜尋企業','企業を検索'),
 'employersPick':('Tap your employer to fill in its work e-mail domain.','點選你的任職公司，即可帶入公司信箱網域。','勤務先をタップすると、会社のメールドメインが入力されます。'),
 'employersNone':('No employer matches.','沒有符合的企業。','該当する企業はありません。'),
 'backToReview':('Back to review','返回確認頁','確認画面に戻る'),
 'employerRecognised':('Recognised employer: {name}','已識別企業：{name}','認識された企業：{name}'),
 'privacyIntro':('How we protect your data:','我們如何保護你的資料：','データの取り扱いについて：'),
 'privacyLink':('Privacy policy','隱私權政策','プライバシーポリシー'),
 'choosePhoto':('Upload a photo','上傳照片','写真をアップロード'),
 'replacePhoto':('Replace photo','更換照片','写真を差し替え'),
 'photoMemoryOnly':('The photo is kept until you close the app: the device storage is full.','裝置儲存空間已滿，照片只會保留到關閉 App 為止。','端末の保存領域がいっぱいのため、写真はアプリを閉じるまでの保持になります。'),
 'photoUnreadable':('This image could not be read. Try a JPEG or PNG photo.','無法讀取此圖片，請改用 JPEG 或 PNG。','この画像を読み込めません。JPEG または PNG をお試しください。'),
 'photoN':('Photo {n}','照片 {n}','写真 {n}'),
 'addPhotoN':('Add photo {n}','新增照片 {n}','写真 {n} を追加'),
 'removePhoto':('Remove photo {n}','移除照片 {n}','写真 {n} を削除'),
 'moveEarlier':('Move photo {n} earlier','將照片 {n} 往前移','写真 {n} を前へ'),
 'moveLater':('Move photo {n} later','將照片 {n} 往後移','写真 {n} を後ろへ'),
 'mainPhoto':('Main','主照片','メイン'),
 'photoMissing':('Photo unavailable','照片無法顯示','写真を表示できません'),
 'photoCount':('{n} photos','{n} 張照片','写真 {n} 枚'),
 'locationTitle':('Your location','你的位置','現在地'),
 'useLocation':('Use my current location','使用目前位置','現在地を使う'),
 'locating':('Locating…','定位中…','位置を取得中…'),
 'locationSaved':('Location saved. It is used for distances only and never shown to anyone.','位置已儲存，只用於計算距離，不會顯示給任何人。','位置情報を保存しました。距離の計算にのみ使い、誰にも表示されません。'),
 'locationRefused':('Location was not shared. Choose your city below instead.','未分享位置，請改為在下方選擇城市。','位置情報が共有されませんでした。下で市区町村を選んでください。'),
 'locationUnavailable':('Your location could not be found. Choose your city below.','無法取得位置，請在下方選擇城市。','位置情報を取得できませんでした。下で市区町村を選んでください。'),
 'forgetLocation':('Remove my location','移除我的位置','位置情報を削除'),
 'distanceAny':('Any distance','不限距離','距離を問わない'),
 'distanceKm':('Within {km} km','{km} 公里內','{km} km 以内'),
 'errorSummary':('{n} fields need attention','有 {n} 個欄位需要處理','{n} 件の項目を確認してください'),
 'notFilled':('Not filled in','未填寫','未入力'),
 'submit':('Submit for review','送出審核','審査に提出'),
 'submitting':('Submitting…','送出中…','送信中…'),
 'retry':('Try submitting again','重新送出','もう一度提出'),
 'submitFailed':('Your profile was not sent.','資料尚未送出。','プロフィールは送信されていません。'),
 'draftKept':('Everything you entered is saved on this device.','你輸入的內容都已保存在此裝置上。','入力内容はこの端末に保存されています。'),
 'afterSubmit':('After you submit, our team reviews your profile.','送出後，我們的團隊會審核你的資料。','提出後、チームがプロフィールを審査します。'),
 'submitted':('Profile submitted for review','資料已送出審核','プロフィールを審査に提出しました'),
 'fixErrors':('Some fields need attention before you can submit.','部分欄位需要修正才能送出。','提出する前に確認が必要な項目があります。'),
 'photoLost':('A photo is no longer on this device. Please add it again.','有照片已不在此裝置上，請重新新增。','写真がこの端末にありません。もう一度追加してください。'),
}
for k,v in R.items(): add('register.'+k, *v)
STEPS = {
 'basics':(('About you','基本資料','基本情報'),('The basics members see first.','會員第一眼看到的基本資料。','最初に表示される基本情報です。')),
 'work':(('Work & verification','工作與驗證','仕事と認証'),('Your work, and how we verify your employer.','你的工作，以及我們如何驗證你的任職公司。','お仕事と、勤務先の確認方法です。')),
 'lifestyle':(('Lifestyle','生活習慣','ライフスタイル'),('A few honest answers help us match well.','誠實的回答能幫助我們更好地配對。','正直な回答がよいマッチングにつながります。')),
 'tags':(('Interests & plans','興趣與規劃','趣味と将来設計'),('Pick what describes you.','選出最能描述你的項目。','あなたに当てはまるものを選んでください。')),
 'about':(('About me & Q&A','自我介紹與問答','自己紹介と Q&A'),('In your own words.','用你自己的話說。','あなた自身の言葉で。')),
 'photos':(('Photos','照片','写真'),('Add up to six photos; the first one is your main photo.','最多六張照片，第一張為主照片。','写真は6枚まで。1枚目がメイン写真になります。')),
 'conditions':(('Partner preferences','理想對象條件','お相手の希望条件'),('Only the conditions you tick are used.','只會使用你勾選的條件。','チェックした条件のみ使われます。')),
 'location':(('Location & distance','位置與距離','エリアと距離'),('Where you live and how far you would travel.','你住在哪裡，以及願意移動的距離。','お住まいと、会いに行ける距離です。')),
 'review':(('Review & submit','確認並送出','確認して提出'),('Check your answers, then submit for review.','確認你的資料後送出審核。','内容を確認して審査に提出してください。')),
}
for k,(title,lead) in STEPS.items():
    add('register.step.'+k, *title); add('register.stepLead.'+k, *lead)
FIELDS = {
 'nickname':('Nickname','暱稱','ニックネーム'),'name':('Full name','真實姓名','氏名'),'gender':('Gender','性別','性別'),
 'matchGender':('Looking for','想認識的對象','お相手の性別'),'birthday':('Date of birth','生日','生年月日'),'height':('Height (cm)','身高（公分）','身長（cm）'),
 'occupationType':('Field of work','職業類別','職種'),'occupation':('Job title','職稱','役職・職業'),'achievement':('Proudest achievement at work','工作上最自豪的成就','仕事で誇れる実績'),
 'incomeRange':('Yearly income','年收入','年収'),'school':('School','學校','学校'),'education':('Education','學歷','学歴'),
 'marriageRecord':('Marital history','婚姻狀況','婚姻歴'),'hasChildren':('Children','子女','子ども'),'smoke':('Smoking','抽菸','喫煙'),
 'drink':('Drinking','喝酒','飲酒'),'tattoo':('Tattoos','刺青','タトゥー'),'mbti':('MBTI','MBTI','MBTI'),
 'personalityTagIds':('Personality','個性','性格'),'exerciseTagIds':('Exercise','運動','運動'),'hobbyTagIds':('Hobbies','興趣','趣味'),
 'marriageTypeTagIds':('Marriage you imagine','理想的婚姻型態','理想の結婚像'),'fertilityPlanTagIds':('Children in the future','生育計畫','子どもについて'),'fertilityPlanTagId':('Children in the future','生育計畫','子どもについて'),
 'petTagIds':('Pets','寵物','ペット'),'aboutMe':('About me','自我介紹','自己紹介'),'datingQuestion':('A question for your date','想問對方的問題','お相手への質問'),
 'dailyLife':('A day in my life','我的日常','私の日常'),'surprisePoint':('Something that surprises people about me','讓人意外的一面','意外な一面'),
 'city':('City or county','縣市','市・県'),'address':('District or area','區域或地址','地域・住所'),'latitude':('Location','位置','位置情報'),'longitude':('Location','位置','位置情報'),
 'recommendDistanceKm':('How far you would travel','願意移動的距離','会いに行ける距離'),'feedback':('Anything to tell our team','想對我們說的話','運営へのメッセージ'),
 'verifyMethod':('How to verify your employer','任職驗證方式','勤務先の確認方法'),'companyEmail':('Work e-mail','公司電子郵件','会社のメールアドレス'),
 'reviewLink':('Verification link','驗證連結','確認用リンク'),'verifyTempFileName':('Photo of your employee ID','員工證照片','社員証の写真'),
 'verifyDescription':('Note for the reviewer','給審核人員的說明','審査担当へのメモ'),'photoNameList':('Photos','照片','写真'),
 'account':('LINE account','LINE 帳號','LINE アカウント'),'password':('LINE account','LINE 帳號','LINE アカウント'),'valueItem':('Partner preferences','理想對象條件','お相手の希望条件'),
}
for k,v in FIELDS.items(): add('field.'+k, *v)
HINTS = {
 'nickname':('Shown to other members.','會顯示給其他會員。','他の会員に表示されます。'),
 'name':('Only our review team sees it.','只有審核團隊看得到。','審査チームのみが確認します。'),
 'height':('In centimetres.','以公分為單位。','センチメートルで入力してください。'),
 'occupation':('For example: Senior firmware engineer.','例如：資深韌體工程師。','例：シニアファームウェアエンジニア'),
 'achievement':('One or two sentences.','一兩句話即可。','1〜2文で。'),
 'verifyMethod':('Choose one way to show where you work.','選擇一種方式證明你的任職公司。','勤務先を確認する方法を1つ選んでください。'),
 'companyEmail':('Must belong to one of the employers above. We only use it to verify you.','必須屬於上方列出的企業，僅用於驗證。','上記の企業のアドレスに限ります。確認にのみ使用します。'),
 'reviewLink':('An https link that shows where you work, such as a company profile page.','可證明任職的 https 連結，例如公司個人頁面。','勤務先がわかる https のリンク（社内プロフィールなど）。'),
 'verifyTempFileName':('Hide your ID number if you like; name and company must be readable.','可遮住證件號碼，但姓名與公司名稱需清楚。','番号は隠しても構いませんが、氏名と会社名は読めるようにしてください。'),
 'verifyDescription':('Optional: anything that helps the reviewer.','選填：任何有助於審核的說明。','任意：審査の参考になること。'),
 'aboutMe':('What should a good match know about you?','想讓合適的對象知道你的什麼？','お相手に知ってほしいことは？'),
 'datingQuestion':('Optional.','選填。','任意。'),'dailyLife':('Optional.','選填。','任意。'),'surprisePoint':('Optional.','選填。','任意。'),
 'feedback':('Optional. Only our team reads it.','選填，只有我們的團隊會看到。','任意。運営チームのみが読みます。'),
 'photos':('Clear, recent photos of you. They are resized on your phone before upload.','請上傳清楚、近期的個人照片，上傳前會在手機上縮小。','最近の、はっきり写った写真を。アップロード前に端末で縮小されます。'),
 'pickUpTo':('Pick up to {max}.','最多選 {max} 項。','最大 {max} 個まで。'),
 'conditions':('Tick a condition to use it; leave it unticked if it does not matter to you.','勾選要使用的條件；不在意的可以不勾。','使う条件にチェックを入れてください。こだわらない項目は空欄で構いません。'),
 'location':('Used to suggest people nearby; never shown to anyone.','用於推薦附近的人，不會顯示給任何人。','近くの方の紹介に使い、誰にも表示されません。'),
 'cityRefused':('Without your location, we use your city.','未提供位置時，會以縣市為準。','位置情報がない場合は市・県を使います。'),
 'address':('District is enough; never shown to other members.','填到區即可，不會顯示給其他會員。','区・町名までで十分です。他の会員には表示されません。'),
}
for k,v in HINTS.items(): add('hint.'+k, *v)
RULES = {
 'required':('This field is required.','此欄位為必填。','必須項目です。'),
 'too_short':('Too short (at least {min}).','太短（至少 {min}）。','短すぎます（{min} 以上）。'),
 'too_long':('Too long (at most {max}).','太長（最多 {max}）。','長すぎます（{max} 以内）。'),
 'out_of_range':('Must be between {min} and {max}.','必須介於 {min} 到 {max} 之間。','{min}〜{max} の範囲で入力してください。'),
 'invalid':('This value is not valid.','此值無效。','無効な値です。'),
 'invalid_type':('This value has the wrong format.','格式不正確。','形式が正しくありません。'),
 'unknown_field':('Unknown field.','未知的欄位。','不明な項目です。'),
 'invalid_choice':('Please choose one of the options.','請從選項中選擇。','選択肢から選んでください。'),
 'invalid_date':('Enter a valid date.','請輸入有效日期。','正しい日付を入力してください。'),
 'too_young':('You must be at least {min} years old.','須年滿 {min} 歲。','{min} 歳以上である必要があります。'),
 'too_old':('Please check the date of birth.','請確認出生日期。','生年月日を確認してください。'),
 'too_few':('Choose at least {min}.','至少選 {min} 項。','{min} 個以上選んでください。'),
 'too_many':('Choose at most {max}.','最多選 {max} 項。','{max} 個以内で選んでください。'),
 'duplicate':('The same item appears twice.','有重複的項目。','同じ項目が重複しています。'),
 'not_https':('The link must start with https://.','連結必須以 https:// 開頭。','リンクは https:// で始まる必要があります。'),
 'invalid_email':('Enter a valid e-mail address.','請輸入有效的電子郵件。','正しいメールアドレスを入力してください。'),
 'unknown_employer':('This e-mail does not belong to a listed employer.','此電子郵件不屬於列出的企業。','このメールは対象企業のものではありません。'),
 'invalid_range':('The lower bound must not exceed the upper bound.','下限不可大於上限。','下限は上限以下にしてください。'),
 'both_or_neither':('Fill in both values or neither.','請兩個都填或都不填。','両方入力するか、両方空欄にしてください。'),
 'mismatch':('This does not match your LINE account.','與你的 LINE 帳號不符。','LINE アカウントと一致しません。'),
 'control_chars':('Remove special control characters.','請移除特殊控制字元。','特殊な制御文字を削除してください。'),
 'unknown_file':('This upload has expired or is no longer available. Please choose the photo again.','此檔案已過期或無法使用，請重新選擇照片。','このファイルは期限切れか、使用できません。写真を選び直してください。'),
}
for k,v in RULES.items(): add('rule.'+k, *v)
COND = {
 'HEIGHT':(('Height','身高','身長'),('cm','公分','cm')),
 'AGE':(('Age','年齡','年齢'),('years','歲','歳')),
 'INCOME':(('Yearly income','年收入','年収'),('× 10,000 TWD','萬元','万台湾ドル')),
 'EDUCATION':(('Education at least','學歷至少','学歴（以上）'),None),
 'MARRIAGE_RECORD':(('Marital history','婚姻狀況','婚姻歴'),None),
 'HAS_CHILDREN':(('Children','子女','子ども'),None),
 'SMOKE':(('Smoking at most','抽菸頻率最多','喫煙（以下）'),None),
 'TATTOO':(('Tattoos at most','刺青最多','タトゥー（以下）'),None),
 'DRINK':(('Drinking at most','喝酒頻率最多','飲酒（以下）'),None),
}
for k,(label,unit) in COND.items():
    add('condition.'+k, *label)
    if unit: add('condition.%s.unit'%k, *unit)
add('condition.from', 'From', '從', 'から')
add('condition.to', 'To', '到', 'まで')
# choices
CH = {
 'gender':{'MALE':('Man','男性','男性'),'FEMALE':('Woman','女性','女性'),'NON_BINARY':('Non-binary','非二元性別','ノンバイナリー')},
 'matchGender':{'MALE':('Men','男性','男性'),'FEMALE':('Women','女性','女性'),'ANY':('Anyone','不限','こだわらない')},
 'occupationType':{'SOFTWARE_ENGINEERING':('Software engineering','軟體工程','ソフトウェア開発'),'HARDWARE_ENGINEERING':('Hardware engineering','硬體工程','ハードウェア開発'),'SEMICONDUCTOR_PROCESS':('Semiconductor process','半導體製程','半導体プロセス'),'DATA_AI':('Data & AI','數據與 AI','データ・AI'),'PRODUCT':('Product management','產品管理','プロダクトマネジメント'),'DESIGN':('Design','設計','デザイン'),'RESEARCH':('Research','研究','研究'),'SALES_MARKETING':('Sales & marketing','業務與行銷','営業・マーケティング'),'OPERATIONS':('Operations','營運','オペレーション'),'FINANCE':('Finance','財務','財務'),'HUMAN_RESOURCES':('Human resources','人力資源','人事'),'LEGAL':('Legal','法務','法務'),'MANAGEMENT':('Management','管理','マネジメント'),'OTHER':('Other','其他','その他')},
 'education':{'HIGH_SCHOOL':('High school','高中','高校'),'ASSOCIATE':('Associate degree','專科','短大・専門'),'BACHELOR':("Bachelor's",'學士','学士'),'MASTER':("Master's",'碩士','修士'),'DOCTORATE':('Doctorate','博士','博士')},
 'incomeRange':{'INCOME_UNDER_60':('Under 600,000 TWD','60 萬以下','60万台湾ドル未満'),'INCOME_60_100':('600,000–1,000,000 TWD','60–100 萬','60〜100万台湾ドル'),'INCOME_100_150':('1,000,000–1,500,000 TWD','100–150 萬','100〜150万台湾ドル'),'INCOME_150_200':('1,500,000–2,000,000 TWD','150–200 萬','150〜200万台湾ドル'),'INCOME_200_300':('2,000,000–3,000,000 TWD','200–300 萬','200〜300万台湾ドル'),'INCOME_300_PLUS':('3,000,000 TWD or more','300 萬以上','300万台湾ドル以上')},
 'marriageRecord':{'never_married':('Never married','未婚','未婚'),'divorced':('Divorced','離婚','離婚歴あり'),'widowed':('Widowed','喪偶','死別')},
 'hasChildren':{'no':('No children','沒有子女','子どもなし'),'yes_living_together':('Yes, living with me','有，同住','あり（同居）'),'yes_living_apart':('Yes, living apart','有，未同住','あり（別居）')},
 'smoke':{'never':('Never','不抽菸','吸わない'),'quit':('Quit','已戒菸','やめた'),'socially':('Socially','社交場合','付き合い程度'),'regularly':('Regularly','經常','よく吸う')},
 'drink':{'never':('Never','不喝酒','飲まない'),'socially':('Socially','社交場合','付き合い程度'),'regularly':('Regularly','經常','よく飲む')},
 'tattoo':{'NONE':('None','沒有','なし'),'HIDDEN':('Not visible in daily clothes','平常看不到','普段は見えない'),'VISIBLE':('Visible','明顯可見','見える位置にある')},
 'verifyMethod':{'COMPANY_EMAIL':('Work e-mail','公司電子郵件','会社のメール'),'EMPLOYEE_ID':('Employee ID photo','員工證照片','社員証の写真'),'REVIEW_LINK':('Verification link','驗證連結','確認用リンク')},
}
for group, opts in CH.items():
    for k,v in opts.items(): add('choice.%s.%s'%(group,k), *v)
for m in ['ISTJ','ISFJ','INFJ','INTJ','ISTP','ISFP','INFP','INTP','ESTP','ESFP','ENFP','ENTP','ESTJ','ESFJ','ENFJ','ENTJ']:
    add('choice.mbti.'+m, m, m, m)
TAGS = {
 'personality':{'outgoing':('Outgoing','外向','社交的'),'introverted':('Introverted','內向','内向的'),'calm':('Calm','沉穩','落ち着いている'),'humorous':('Humorous','幽默','ユーモアがある'),'optimistic':('Optimistic','樂觀','前向き'),'thoughtful':('Thoughtful','體貼','思いやりがある'),'adventurous':('Adventurous','愛冒險','冒険好き'),'steady':('Steady','穩重','堅実'),'creative':('Creative','有創意','クリエイティブ'),'organised':('Organised','有條理','几帳面'),'gentle':('Gentle','溫柔','やさしい'),'straightforward':('Straightforward','直率','率直')},
 'exercise':{'running':('Running','跑步','ランニング'),'cycling':('Cycling','騎自行車','サイクリング'),'swimming':('Swimming','游泳','水泳'),'hiking':('Hiking','登山健行','ハイキング'),'gym':('Gym','健身房','ジム'),'yoga':('Yoga','瑜伽','ヨガ'),'basketball':('Basketball','籃球','バスケットボール'),'badminton':('Badminton','羽球','バドミントン'),'tennis':('Tennis','網球','テニス'),'dancing':('Dancing','跳舞','ダンス'),'climbing':('Climbing','攀岩','クライミング'),'none':('Not much exercise','不太運動','あまり運動しない')},
 'hobby':{'reading':('Reading','閱讀','読書'),'movies':('Movies','電影','映画'),'music':('Music','音樂','音楽'),'cooking':('Cooking','料理','料理'),'travel':('Travel','旅行','旅行'),'photography':('Photography','攝影','写真'),'gaming':('Gaming','電玩','ゲーム'),'board_games':('Board games','桌遊','ボードゲーム'),'coffee':('Coffee','咖啡','コーヒー'),'wine':('Wine','品酒','ワイン'),'art':('Art','藝術','アート'),'volunteering':('Volunteering','志工','ボランティア'),'gardening':('Gardening','園藝','ガーデニング'),'languages':('Languages','學語言','語学'),'tech':('Tech','科技','テクノロジー')},
 'marriageType':{'traditional':('Traditional','傳統型','伝統的'),'equal_partnership':('Equal partnership','平等夥伴','対等なパートナー'),'long_distance_ok':('Long distance is fine','可接受遠距','遠距離も可'),'live_with_parents_ok':('Living with parents is fine','可與父母同住','親との同居も可'),'separate_finances':('Separate finances','財務分開','家計は別々'),'shared_finances':('Shared finances','共同理財','家計は共同')},
 'fertilityPlan':{'want_children':('Want children','想要小孩','子どもが欲しい'),'open_to_children':('Open to children','順其自然','授かれば'),'no_children':('No children','不想要小孩','子どもは望まない'),'undecided':('Undecided','還沒決定','未定')},
 'pet':{'dog':('Dog','狗','犬'),'cat':('Cat','貓','猫'),'other_pet':('Other pets','其他寵物','その他のペット'),'no_pets':('No pets','沒有寵物','ペットなし'),'allergic':('Allergic to pets','對寵物過敏','ペットアレルギー')},
}
for group, opts in TAGS.items():
    for k,v in opts.items(): add('tag.%s.%s'%(group,k), *v)
CITIES = {
 'taipei_city':('Taipei City','臺北市','台北市'),'new_taipei_city':('New Taipei City','新北市','新北市'),'taoyuan_city':('Taoyuan City','桃園市','桃園市'),
 'taichung_city':('Taichung City','臺中市','台中市'),'tainan_city':('Tainan City','臺南市','台南市'),'kaohsiung_city':('Kaohsiung City','高雄市','高雄市'),
 'keelung_city':('Keelung City','基隆市','基隆市'),'hsinchu_city':('Hsinchu City','新竹市','新竹市'),'chiayi_city':('Chiayi City','嘉義市','嘉義市'),
 'hsinchu_county':('Hsinchu County','新竹縣','新竹県'),'miaoli_county':('Miaoli County','苗栗縣','苗栗県'),'changhua_county':('Changhua County','彰化縣','彰化県'),
 'nantou_county':('Nantou County','南投縣','南投県'),'yunlin_county':('Yunlin County','雲林縣','雲林県'),'chiayi_county':('Chiayi County','嘉義縣','嘉義県'),
 'pingtung_county':('Pingtung County','屏東縣','屏東県'),'yilan_county':('Yilan County','宜蘭縣','宜蘭県'),'hualien_county':('Hualien County','花蓮縣','花蓮県'),
 'taitung_county':('Taitung County','臺東縣','台東県'),'penghu_county':('Penghu County','澎湖縣','澎湖県'),'kinmen_county':('Kinmen County','金門縣','金門県'),
 'lienchiang_county':('Lienchiang County (Matsu)','連江縣','連江県（馬祖）'),
}
for k,v in CITIES.items(): add('city.'+k, *v)

# review and safety reasons, distance bands (catalogues of kizuna-core)
REJECT = {
 'PHOTOS_UNCLEAR':('Photos are unclear: blurry, dark, or your face cannot be seen','照片不清楚：模糊、太暗或看不到臉','写真が不鮮明です（ぼやけている・暗い・顔が見えない）'),
 'PHOTOS_NOT_OF_YOU':('Photos must show you, not other people, celebrities or drawings','照片必須是你本人，不能是他人、名人或插圖','写真はご本人のものにしてください（他人・有名人・イラストは不可）'),
 'PHOTOS_INAPPROPRIATE':('Some photos are not suitable for the service','部分照片不適合本服務','サービスにふさわしくない写真があります'),
 'VERIFICATION_INSUFFICIENT':('Your proof of employment does not show where you work','工作證明無法確認你的任職公司','在籍証明から勤務先を確認できません'),
 'EMPLOYER_NOT_SUPPORTED':('Your employer is not one we can verify yet','目前尚無法驗證你的任職公司','現在この勤務先は確認の対象外です'),
 'EMAIL_NOT_CONFIRMED':('Your work e-mail was not confirmed with its code','公司電子郵件尚未以驗證碼確認','会社のメールアドレスが確認コードで確認されていません'),
 'PROFILE_INCOMPLETE':('Please tell a little more about yourself','請多介紹一些關於你自己','自己紹介をもう少し詳しく書いてください'),
 'TEXT_INAPPROPRIATE':('Some of your texts are not suitable for the service','部分文字內容不適合本服務','ふさわしくない文章があります'),
 'CONTACT_DETAILS_IN_TEXT':('Please remove phone numbers, IDs, accounts or links from your texts','請移除文字中的電話、ID、帳號或連結','文章から電話番号・ID・アカウント・リンクを削除してください'),
 'NAME_MISMATCH':('Your name differs from the one on your proof of employment','姓名與工作證明上的不一致','お名前が在籍証明の記載と異なります'),
 'OCCUPATION_MISMATCH':('Your job does not match your proof of employment','職業與工作證明不符','職業が在籍証明の内容と一致しません'),
 'OTHER':('Other: see the note from our team','其他：請見審核人員的說明','その他：担当者からのメモをご覧ください'),
}
for k,v in REJECT.items(): add('review.reject.'+k, *v)
SUSPEND = {
 'HARASSMENT':('Harassment','騷擾','嫌がらせ'),
 'SCAM':('Scam or asking for money','詐騙或索取金錢','詐欺・金銭の要求'),
 'FAKE_PROFILE':('Fake profile','假冒身分','なりすまし・偽のプロフィール'),
 'INAPPROPRIATE_CONTENT':('Inappropriate photos or messages','不當照片或訊息','不適切な写真・メッセージ'),
 'UNDERAGE':('Under the minimum age','未達最低年齡','年齢制限未満'),
 'IN_A_RELATIONSHIP':('Married or in a relationship','已婚或有交往對象','既婚・交際相手あり'),
 'SPAM':('Advertising or spam','廣告或垃圾訊息','宣伝・スパム'),
 'OTHER':('Other: see the note from our team','其他：請見審核人員的說明','その他：担当者からのメモをご覧ください'),
}
for k,v in SUSPEND.items(): add('review.suspend.'+k, *v)
REPORT = {
 'FAKE_PROFILE':('Fake profile','假冒身分','なりすまし・偽のプロフィール'),
 'HARASSMENT':('Harassment','騷擾','嫌がらせ'),
 'SCAM_OR_MONEY':('Scam or asking for money','詐騙或索取金錢','詐欺・金銭の要求'),
 'INAPPROPRIATE_PHOTOS':('Inappropriate photos','不當照片','不適切な写真'),
 'OFFENSIVE_MESSAGES':('Offensive messages','冒犯性訊息','不快なメッセージ'),
 'UNDERAGE':('Seems to be under 18','疑似未滿 18 歲','18歳未満の疑い'),
 'IN_A_RELATIONSHIP':('Married or in a relationship','已婚或有交往對象','既婚・交際相手あり'),
 'SPAM':('Advertising or spam','廣告或垃圾訊息','宣伝・スパム'),
 'OTHER':('Other (please describe)','其他（請說明）','その他（内容をご記入ください）'),
}
for k,v in REPORT.items(): add('report.reason.'+k, *v)
BANDS = {
 'UNDER_5_KM':('Under 5 km','5 公里內','5 km 未満'),
 'FROM_5_TO_20_KM':('5–20 km','5–20 公里','5〜20 km'),
 'FROM_20_TO_50_KM':('20–50 km','20–50 公里','20〜50 km'),
 'OVER_50_KM':('Over 50 km','超過 50 公里','50 km 以上'),
}
for k,v in BANDS.items(): add('distanceBand.'+k, *v)

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, '..', 'src', 'lib', 'i18n', 'locales')
for i, loc in enumerate(['en', 'zh-TW', 'ja']):
    with open(os.path.join(out, loc + '.json'), 'w', encoding='utf-8') as f:
        json.dump({k: v[i] for k, v in sorted(M.items())}, f, ensure_ascii=False, indent=1)
        f.write('\n')
print(len(M), 'keys')
